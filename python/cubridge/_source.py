"""The source text of the functions cubridge compiles: read with ``inspect`` (a file, or text registered
in linecache such as IPython cells), identifiers normalised as Python reads them, or rebuilt from the
bytecode where Python keeps no text (``_bytecode``); cached per code object."""
from __future__ import annotations

from ._core import CompileError

_SOURCES: dict = {}


def _source_of(fn) -> tuple[str, str, int]:
    # Keyed by the code object: a redefined function gets a new one, so the cache never goes stale; and by
    # its file, which code objects leave out of equality (the same text exec'd elsewhere has no file).
    key = (fn.__code__, fn.__code__.co_filename)
    hit = _SOURCES.get(key)
    if hit is not None:
        return hit
    hit = _read_source(fn)
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES[key] = hit
    return hit


def nfkc_identifiers(source: str) -> str:
    """`source` with each identifier normalised to NFKC, as Python reads identifiers (PEP 3131: `def 𝓍` defines
    `x`), so the compiler sees the names Python gives the function and its globals; ASCII text is returned
    as it is (the common case costs one check)."""
    if source.isascii():
        return source
    import io
    import tokenize
    import unicodedata
    lines = source.splitlines(keepends=True)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type == tokenize.NAME and not t.string.isascii()]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source  # the compiler reports the syntax error itself
    for t in reversed(tokens):  # from the end, so earlier positions stay valid
        (row, col), (_, end) = t.start, t.end
        line = lines[row - 1]
        lines[row - 1] = line[:col] + unicodedata.normalize("NFKC", t.string) + line[end:]
    return "".join(lines)


def _read_source(fn) -> tuple[str, str, int]:
    import inspect  # imported here: it costs ~10 ms at start-up, which the CLI never needs
    import textwrap
    try:
        lines, first = inspect.getsourcelines(fn)  # a file, or text registered in linecache (IPython cells)
    except (OSError, TypeError):
        return _rebuilt_source(fn)
    filename = inspect.getsourcefile(fn) or getattr(fn.__code__, "co_filename", "<unknown>")
    return nfkc_identifiers(textwrap.dedent("".join(lines))), filename, max(first, 1)


def _rebuilt_source(fn) -> tuple[str, str, int]:
    """The source of a function Python keeps no text for (`python -c`, stdin, `exec` of a string, the
    REPL), rebuilt from its bytecode (python/cubridge/_bytecode/)."""
    from . import _bytecode
    try:
        text, first = _bytecode.source_text(fn)
    except _bytecode.BytecodeError as e:
        raise CompileError(str(e)) from None
    return text, fn.__code__.co_filename, first
