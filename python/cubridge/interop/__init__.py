"""Memory managers over other libraries' pools, each a cubridge EMM plugin (Python):
``cubridge.set_memory_manager(cubridge.interop.cupy.CuPyMemoryManager)`` and likewise for torch and rmm.
Each module imports its library only when the module itself is imported."""
__all__ = ["cupy", "torch", "rmm"]
