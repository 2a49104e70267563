"""Toolkit discovery (libNVVM, nvJitLink, NVRTC, libdevice) and linking, re-exported by cubridge."""
__all__: list[str] = []
