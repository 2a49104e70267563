"""Statements (decoder.Node) written out as source text, each at the line CPython recorded for it (blank
lines pad the gaps), so the front end's messages name the lines Python would."""
from __future__ import annotations

from .decoder import Node


class _Writer:
    def __init__(self, first_line: int):
        self.lines: list[str] = []
        self.first = first_line

    def emit(self, line: int, depth: int, text: str) -> None:
        want = line - self.first
        while len(self.lines) < want:
            self.lines.append("")
        self.lines.append("    " * depth + text)

    def block(self, nodes: list[Node], depth: int) -> None:
        for node in nodes:
            self.node(node, depth)

    def node(self, node: Node, depth: int, keyword: str = "") -> None:
        text = keyword + node.text[2:] if keyword and node.text.startswith("if ") else node.text
        body = node.body
        if body is not None and len(body) == 1 and body[0].body is None and body[0].line == node.line \
                and len(self.lines) < node.line - self.first + 1:
            self.emit(node.line, depth, f"{text} {body[0].text}")  # "if i >= n: return" stays on one line
        else:
            self.emit(node.line, depth, text)
            if body is not None:
                self.block(body, depth + 1)
        if not node.orelse:
            return
        if len(node.orelse) == 1 and node.orelse[0].keyword == "if" and node.keyword == "if":
            self.node(node.orelse[0], depth, "elif")
            return
        self.emit(_first_line(node.orelse) - 1, depth, "else:")
        self.block(node.orelse, depth + 1)


def _first_line(nodes: list[Node]) -> int:
    return min(n.line for n in nodes)


def render(header: str, docstring: str | None, body: list[Node], first_line: int) -> str:
    w = _Writer(first_line)
    w.emit(first_line, 0, header)
    if docstring is not None:
        w.emit(first_line + 1, 1, docstring)
    w.block(body, 1)
    return "\n".join(w.lines) + "\n"
