"""numba-cuda's ``cache=True`` in drop-in mode: the kernel's compiled specialisations kept in numba-cuda's
file layout, on cubridge's code cache.

A numba-cuda program (``cubridge.install_numba()``, ``CUBRIDGE_NUMBA=1``) that writes ``@cuda.jit(cache=True)``
sees what numba-cuda documents and its users script against:

- where: ``$NUMBA_CACHE_DIR/<dir>_<sha1 of the source's directory>`` when numba's CACHE_DIR is set, else the
  ``__pycache__`` beside the source file when it can be created and written, else
  ``<cubridge's cache directory>/numba/<dir>_<sha1>`` (numba-cuda's user-wide fallback);
- what: one index per function, ``<module>.<qualname>-<first line>.py<major><minor><abiflags>.nbi``, and one
  data file per compiled specialisation, ``<same base>.<n>.nbc`` (n from 1, the first number free);
- when reused: the index holds the source file's modification time and size when the function was made
  (decorated); another stamp (the source was edited) reads as an empty index, and its data files are overwritten in turn. An entry is found by the
  signature, the compute capability, the options, cubridge's build and libNVVM's version, and SHA-256 of the
  function's bytecode and of its closure's values: as in numba-cuda, a changed global variable or another
  module's function is not noticed (``recompile()`` compiles afresh and overwrites);
- what is refused: code that embeds GPU arrays (globals or closure values; pickle.PicklingError) and kernels
  linked with files (``link=``, ``declare_device``; RuntimeError), in numba-cuda's words.

Every file is an entry of cubridge's code cache (``CodeCache.put_at``): written atomically, read only when it
is a regular file of this user, and MAC'd under the per-user secret kept in cubridge's own cache directory, so
a planted or edited file is a miss, never code. The index is JSON inside such an entry (nothing is unpickled).
"""
from __future__ import annotations

import collections
import inspect
import os
import sys

from . import _core, _numba_diagnostics

__all__ = ["FileCache", "CompileStats", "uses_file_cache", "check_cachable", "DEVICE_ARRAY_MESSAGE", "LINK_MESSAGE"]

# numba-cuda's words (tests and users match them)
DEVICE_ARRAY_MESSAGE = ("Cannot serialize kernels or device functions referencing global device arrays. Pass the "
                        "array(s) as arguments to the kernel instead.")
LINK_MESSAGE = "Cannot pickle CUDACodeLibrary with linking files"

# numba-cuda's dispatcher.stats
CompileStats = collections.namedtuple("_CompileStats", ("cache_path", "cache_hits", "cache_misses"))


# hashlib (OpenSSL), json, pickle and tempfile are imported where they are used: together ~5-8 ms at start-up,
# which a program without numba-cuda's cache=True files (cubridge's cold first compile) never needs.


def _hex_digest(data: bytes, algorithm: str = "sha256") -> str:
    import hashlib
    return hashlib.new(algorithm, data).hexdigest()


def _device_array_error(message: str) -> Exception:
    """numba-cuda's error for a GPU array it would have to pickle."""
    import pickle
    return pickle.PicklingError(message)


def uses_file_cache(options) -> bool:
    """Whether a kernel made with `options` keeps numba-cuda's cache files: cache=True written out, in a
    numba-cuda program served by cubridge (elsewhere cache=True is cubridge's own code cache, its default)."""
    return options.cache is True and _numba_diagnostics.numba_program()


def _subpath(source: str) -> str:
    """numba-cuda's per-directory folder name inside a cache root: the directory's name and SHA-1 of its path."""
    parent = os.path.dirname(os.path.abspath(source))
    return os.path.basename(parent) + "_" + _hex_digest(parent.encode(), "sha1")


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        import tempfile
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _locate(source: str) -> str | None:
    """The directory the function's files live in, in numba-cuda's order (see the module's text)."""
    if not os.path.exists(source):
        return None  # no file behind the function (<string>, an interactive cell): nowhere to key it
    root = _numba_diagnostics.numba_config("CACHE_DIR", "") or os.environ.get("NUMBA_CACHE_DIR", "")
    if root:
        path = os.path.join(root, _subpath(source))
        return path if _writable(path) else None
    candidates = (os.path.join(os.path.dirname(os.path.abspath(source)), "__pycache__"),
                  os.path.join(_core.CodeCache.default_directory(), "numba", _subpath(source)))
    return next((c for c in candidates if _writable(c)), None)


def _closure_fingerprint(value, out: list, seen: set) -> None:
    """A description of a closure value that changes when the value does (numba-cuda hashes the pickled
    closure). GPU arrays are refused as numba-cuda refuses them; anything without a stable description
    (an object whose repr holds its address) makes the key differ per process: a miss, never wrong code."""
    if getattr(value, "__cuda_array_interface__", None) is not None:
        raise _device_array_error(DEVICE_ARRAY_MESSAGE)
    if id(value) in seen:
        out.append("<cycle>")
        return
    kind = type(value)
    out.append(f"{kind.__module__}.{kind.__qualname__}:")
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        out.append(repr(value))
        return
    seen.add(id(value))
    if isinstance(value, (tuple, list)):
        for item in value:
            _closure_fingerprint(item, out, seen)
        return
    if hasattr(value, "__array_interface__") and hasattr(value, "tobytes"):  # NumPy arrays and scalars
        out.append(f"{value.dtype.str}{getattr(value, 'shape', ())}{value.tobytes().hex()}")
        return
    func = getattr(value, "py_func", value)
    if inspect.isfunction(func):
        out.append(f"{func.__module__}.{func.__qualname__}:{_hex_digest(func.__code__.co_code)}")
        for cell in func.__closure__ or ():
            _closure_fingerprint(cell.cell_contents, out, seen)
        return
    if inspect.ismodule(value) or inspect.isclass(value):
        out.append(f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value.__name__)}")
        return
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):  # an object the kernel may read attributes of: its attributes, as pickle takes them
        for name in sorted(state):
            out.append(str(name))
            _closure_fingerprint(state[name], out, seen)
        return
    try:
        out.append(repr(value))
    except Exception:  # no description: this process's identity (a miss in any other)
        out.append(f"<{id(value)}>")


def _build_identity() -> str:
    """This build of cubridge (its extension file's path, size and modification time)."""
    st = os.stat(_core.__file__)
    return f"{_core.__file__} {st.st_size} {st.st_mtime_ns}"


class FileCache:
    """One function's files in numba-cuda's layout (see the module's text): load(key) and save(key, result)
    of compile results, flush() to forget every entry (recompile)."""

    def __init__(self, py_func):
        self._py_func = py_func
        source = inspect.getfile(py_func)
        qualname = getattr(py_func, "__qualname__", py_func.__name__)
        path = _locate(source)
        if path is None:
            raise RuntimeError(f"cannot cache function {qualname!r}: no locator available for file {source!r} "
                               "(no source file, or neither NUMBA_CACHE_DIR, the __pycache__ beside it nor "
                               f"{_core.CodeCache.default_directory()} can be written)")
        self.cache_path = path
        st = os.stat(source)
        # The source as this function was made from it (numba-cuda stamps at decoration too): a process that
        # compiles after the file was edited writes its entries under the stamp of the text it runs, so a
        # process importing the edited text never reads them.
        self._stamp = [st.st_mtime, st.st_size]  # both: some file systems keep whole seconds only
        module = os.path.splitext(os.path.basename(source))[0]
        full = f"{module}.{qualname}".replace("<", "").replace(">", "")
        abiflags = getattr(sys, "abiflags", "")
        self._base = (f"{full}-{py_func.__code__.co_firstlineno}.py{sys.version_info[0]}{sys.version_info[1]}"
                      f"{abiflags}")
        self._index_name = self._base + ".nbi"
        self._cache = _core.CodeCache()

    def __repr__(self) -> str:
        return f"<cubridge FileCache {os.path.join(self.cache_path, self._base)}.*>"

    # -- keys

    def index_key(self, signature, cc, options) -> str:
        """What finds a compiled specialisation (numba-cuda's index key, with cubridge's build in it)."""
        f = self._py_func
        closure: list = []
        _closure_fingerprint([c.cell_contents for c in f.__closure__ or ()], closure, set())
        parts = [str(signature), repr(cc), repr(options.compiler()), repr(options.launch_bounds),
                 repr(options.max_registers), repr(options.inline_policy), _build_identity(),
                 _hex_digest(f.__code__.co_code),
                 _hex_digest("\x1f".join(closure).encode())]
        return _core.CodeCache.make_key(parts, nvvm=True)

    # -- the index: {sha256 of index key: data file name}, valid for one source stamp

    def _load_index(self) -> dict:
        raw = self._cache.get_at(self.cache_path, self._index_name, "numba index\x1f" + self._base)
        if raw is None:
            return {}
        import json
        try:
            index = json.loads(raw)
        except ValueError:
            return {}
        if not isinstance(index, dict) or index.get("stamp") != self._stamp:
            return {}  # another version of the source: its data files are overwritten in turn
        overloads = index.get("overloads")
        return overloads if isinstance(overloads, dict) else {}

    def _save_index(self, overloads: dict) -> None:
        import json
        data = json.dumps({"stamp": self._stamp, "overloads": overloads}).encode()
        self._cache.put_at(self.cache_path, self._index_name, "numba index\x1f" + self._base, data)

    def _data_key(self, key: str) -> str:
        return "numba data\x1f" + self._base + "\x1f" + key

    # -- entries

    def load(self, key: str, ltoir: bool = False):
        """The compile result stored for `key`, or None (a miss)."""
        name = self._load_index().get(_hex_digest(key.encode()))
        if not isinstance(name, str):
            return None
        raw = self._cache.get_at(self.cache_path, name, self._data_key(key))  # the key is checked in the entry
        return None if raw is None else _core._compile_result_from_bytes(raw, ltoir)

    def save(self, key: str, result) -> None:
        overloads = self._load_index()
        digest = _hex_digest(key.encode())
        name = overloads.get(digest)
        if not isinstance(name, str):
            taken = set(overloads.values())
            n = 1
            while f"{self._base}.{n}.nbc" in taken:
                n += 1
            name = overloads[digest] = f"{self._base}.{n}.nbc"
            self._save_index(overloads)
        self._cache.put_at(self.cache_path, name, self._data_key(key), result._to_bytes())

    def flush(self) -> None:
        """Forgets every entry (an empty index): the next compile of each signature is a miss."""
        self._save_index({})


def check_cachable(name: str, referenced, links, linked_files) -> None:
    """numba-cuda's refusals when a kernel is saved to its cache: embedded GPU arrays, files linked with it."""
    if any(getattr(o, "__cuda_array_interface__", None) is not None for o in referenced):
        raise _device_array_error(f"{DEVICE_ARRAY_MESSAGE} (kernel {name!r} with cache=True)")
    if linked_files or links:
        items = [os.path.basename(os.fspath(i)) if isinstance(i, (str, os.PathLike)) else type(i).__name__
                 for i in (*linked_files, *links)]
        raise RuntimeError(f"{LINK_MESSAGE}: kernel {name!r} is linked with {', '.join(items)}; cache=True keeps "
                           "only code compiled from Python (leave cache=True out for kernels that link files)")

