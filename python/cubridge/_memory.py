"""_memory face of cubridge (see DESIGN.md)."""
__all__: list[str] = []
