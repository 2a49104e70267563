"""The `cubridge` command line (placeholder until the CLI lands)."""
def main(argv=None) -> int:
    return 0
