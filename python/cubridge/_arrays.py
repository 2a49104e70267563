"""_arrays face of cubridge (see DESIGN.md)."""
__all__: list[str] = []
