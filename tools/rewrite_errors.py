#!/usr/bin/env python3
"""Rewrites bare std:: throws into cubridge's error family (include/cubridge/error.hpp), keeping every message:

    throw std::invalid_argument(...)  ->  throw cubridge::InvalidArgument(...)
    throw std::runtime_error(...)     ->  throw cubridge::RuntimeError(...)

and adds `#include "cubridge/error.hpp"` to each file it changed. Idempotent: run it again after merging a
branch that threw bare std:: exceptions (python3 tools/rewrite_errors.py [ROOT]); it prints each file changed.
Only src/ and python/src/ are rewritten (tests keep catching the std:: bases, which still match).
"""
from __future__ import annotations

import pathlib
import re
import sys

REWRITES = {"throw std::invalid_argument(": "throw cubridge::InvalidArgument(",
            "throw std::runtime_error(": "throw cubridge::RuntimeError("}
INCLUDE = '#include "cubridge/error.hpp"'
LAST_INCLUDE = re.compile(r'^#include [<"][^>"]+[>"][^\n]*$', re.M)


def rewrite(text: str) -> str:
    new = text
    for old, replacement in REWRITES.items():
        new = new.replace(old, replacement)
    if new == text or INCLUDE in new:
        return new
    # After the last #include of the file's opening block (comments, blank lines and directives), never
    # one further down (a generated table included inside an initializer).
    head_end = len(new)
    for line in re.finditer(r"^.*$", new, re.M):
        stripped = line.group().strip()
        if stripped and not stripped.startswith(("//", "#", "/*", "*")):
            head_end = line.start()
            break
    includes = [m for m in LAST_INCLUDE.finditer(new) if m.start() < head_end]
    if not includes:
        raise SystemExit("rewrite_errors: a file that throws has no #include to place the error header after")
    at = includes[-1].end()
    return new[:at] + "\n" + INCLUDE + new[at:]


def main(root: pathlib.Path) -> int:
    for folder in ("src", "python/src"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp") or path.name == "error.hpp":
                continue
            text = path.read_text(encoding="utf-8")
            new = rewrite(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(path.relative_to(root))
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])))
