"""`cubridge demo`: the end-to-end main job (grows as the faces land; see README)."""
from __future__ import annotations

import argparse


def main(args: argparse.Namespace) -> int:
    from ._cli import cmd_info
    return cmd_info(args)
