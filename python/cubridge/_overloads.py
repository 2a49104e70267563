"""One compiled specialisation of a ``@cubridge.jit`` kernel (numba-cuda's ``_Kernel``) and the dict of them a
Dispatcher keeps (numba-cuda's ``overloads``), with numba-cuda's inspection methods.

The dict is keyed by ``cubridge.Signature`` (returning void); a lookup also takes what numba-cuda users pass:
a tuple of argument types (numba's or cubridge's: ``(float32[::1], int64)``), a signature object or its
spelling (``'void(float32[::1], int64)'``)."""
from __future__ import annotations

import functools
import os
import sys
from typing import Any

from . import _compiler, _linker
from ._type_annotation import TypeAnnotation
from ._types import Signature, as_signature, as_type, void


def kernel_signature(signature) -> Signature:
    """The Signature of a kernel: any signature ``cubridge.compile`` takes (``_types.as_signature``:
    cubridge.void(cubridge.float32[:]), numba.void(numba.float32[::1]), a spelling, a sequence of parameter
    types, spellings such as 'const float32*' among them), returning void or nothing."""
    try:
        sig = as_signature(signature)
    except TypeError:
        raise TypeError(_unknown_parameter(signature) or (
                        f"signature: {signature!r} ({type(signature).__name__}) is not a str such as "
                        "'void(float32[:], int64)', a KernelSignature, a sequence of parameter types, or a "
                        "signature object such as cubridge.void(cubridge.float32[:]) or "
                        "numba.void(numba.float32[::1])")) from None
    if sig.return_type is not None and sig.return_type.kind != "none":
        raise ValueError(f"signature: a kernel returns void, but {signature!r} returns {sig.return_type}")
    return Signature._make(void, sig.args)


def _unknown_parameter(signature) -> str | None:
    """For a signature object (numba's) whose parameter types cubridge does not all know: which one, and why."""
    args = getattr(signature, "args", None)
    if not isinstance(args, (tuple, list)) or not hasattr(signature, "return_type"):
        return None
    for i, a in enumerate(args):
        try:
            as_type(a)
        except TypeError as error:
            return f"signature {signature}: parameter {i + 1}, {a} ({type(a).__name__}), has no cubridge type: {error}"
    return None


class SignatureDict(dict):
    """A dict keyed by kernel Signatures whose lookups (``d[k]``, ``k in d``, ``d.get(k)``) also take numba's
    keys: a tuple of argument types, a signature object or spelling. A key that is no signature is absent."""

    @staticmethod
    def _key(key):
        if isinstance(key, Signature):
            return key
        try:
            return kernel_signature(key)
        except (TypeError, ValueError):
            return None

    def __getitem__(self, key):
        k = self._key(key)
        if k is None or not dict.__contains__(self, k):
            raise KeyError(f"{key!r}: no kernel compiled for it; compiled: "
                           f"{', '.join(str(s) for s in self) or 'none yet'}")
        return dict.__getitem__(self, k)

    def __contains__(self, key) -> bool:
        k = self._key(key)
        return k is not None and dict.__contains__(self, k)

    def get(self, key, default=None):
        return self[key] if key in self else default


def _cc_text(cc) -> str:
    return f"sm_{cc[0]}{cc[1]}" if cc is not None else "the lowest architecture libNVVM supports"


class CompiledCode:
    """What a compiled kernel and a compiled device function share: the PTX compiled (``ptx``, for ``cc``) and
    numba-cuda's inspect_asm / inspect_llvm, recompiling through the subclass's ``_compile(output, cc)``."""

    ptx: str
    cc: Any
    signature: Signature

    @property
    def args(self):
        return self.signature.args

    @property
    def argtypes(self) -> tuple:
        """numba-cuda's name: the argument types, as a tuple."""
        return tuple(self.signature.args)

    def inspect_asm(self, cc=None) -> str:
        """The PTX; for another compute capability `cc` (a (major, minor) pair), compiled for it."""
        if cc is None or self.cc is not None and tuple(cc) == tuple(self.cc):
            return self.ptx
        return self._compile("ptx", _linker._cc(cc, "inspect_asm", "cc")).code.decode()

    def inspect_llvm(self) -> str:
        """The NVVM IR the front end gives libNVVM."""
        return self._compile("llvm", self.cc).nvvm_ir


class CompiledKernel(CompiledCode):
    """A kernel compiled for one signature (what ``Dispatcher.compile(sig)`` returns and ``overloads`` holds):
    its PTX, entry name, and numba-cuda's ``inspect_*`` methods; numba-cuda's ``_type_annotation.typemap`` (each
    variable's inferred type) and ``_codelibrary._linking_files`` (what it is linked with). Loaded onto a device at
    its first launch."""

    def __init__(self, dispatcher, signature: Signature, result, cc, referenced=(), links: tuple = ()):
        self._dispatcher = dispatcher
        self.referenced_objects = list(referenced)  # GPU arrays the code embeds by address (numba-cuda's name)
        self.links = links  # the link items of the external device functions it calls (declare_device)
        self.signature = signature
        self.cc = cc  # the compute capability compiled for (None: the lowest, JIT-compiled on load)
        self.ptx: str = result.code.decode()
        self.entry_name: str = result.name
        self.cooperative: bool = result.cooperative
        self.raise_sites: dict = {site[0]: site for site in result.raise_sites}

    def _compile(self, output: str, cc):
        d = self._dispatcher
        return _compiler._compile_result(d.py_func, self.signature, device=False, abi="numba", cc=cc,
                                         output=output, directives=d._options, **d._options.compiler())

    def _arch(self, cc, what: str):
        cc = self.cc if cc is None else _linker._cc(cc, what, "cc")
        if cc is None:
            raise ValueError(f"{what}: no device to take the compute capability from; pass cc=(major, minor)")
        return cc

    def inspect_lto_ptx(self, cc=None) -> str:
        """The PTX nvJitLink makes of the kernel's LTO-IR (link-time optimised), for `cc` or the compiled one,
        with the code it links (link=, declare_device's): CUDA C++ compiled to LTO-IR, so that, as in numba-cuda,
        the linked functions are optimised into the kernel."""
        from ._external_functions import link_inputs
        cc = self._arch(cc, "inspect_lto_ptx")
        o = self._dispatcher._options
        inputs = [("ltoir", self._compile("ltoir", cc).code, "kernel.ltoir"),
                  *link_inputs((*o.link, *self.links), cc, debug=o.debug, lineinfo=o.lineinfo, ltoir=True)]
        ptx = _linker.link(inputs, arch=cc, lto=True, output="ptx")
        if self.entry_name not in ptx:  # never an empty module passed off as the kernel's code
            name = self._dispatcher.__name__
            raise RuntimeError(f"inspect_lto_ptx: nvJitLink's PTX of kernel {name!r} (its LTO-IR) for {_cc_text(cc)}"
                               f" lacks the kernel {self.entry_name} (the link dropped it); "
                               "inspect_asm gives the kernel's PTX")
        return ptx

    def inspect_sass(self, cc=None) -> str:
        """The SASS of the kernel's cubin, disassembled by the toolkit's nvdisasm (or cuobjdump)."""
        import shutil, subprocess, tempfile  # here: together they cost every `import cubridge` ~5 ms
        cc = self._arch(cc, "inspect_sass")
        tools = [(t, shutil.which(t) or _toolkit_tool(t)) for t in ("nvdisasm", "cuobjdump")]
        tool, path = next(((t, p) for t, p in tools if p), (None, None))
        if path is None:
            raise RuntimeError("inspect_sass needs the CUDA toolkit's nvdisasm or cuobjdump, and neither is on PATH "
                               "or in a CUDA home (install the toolkit's nvdisasm: cuda-nvdisasm, or "
                               "nvidia-cuda-nvdisasm)")
        cubin = _linker.link([self.inspect_asm(cc)], arch=cc, lto=False)
        with tempfile.TemporaryDirectory() as tmp:
            file = os.path.join(tmp, "kernel.cubin")
            with open(file, "wb") as f:
                f.write(cubin)
            cmd = [path, file] if tool == "nvdisasm" else [path, "-sass", file]
            out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"inspect_sass: {tool} failed ({out.returncode}): {out.stderr.strip()}")
        return out.stdout

    def inspect_types(self, file=None) -> None:
        """Writes the kernel's name, signature and source (cubridge types the source itself; it has no Numba IR
        to annotate) to `file` (sys.stdout by default)."""
        d = self._dispatcher
        file = sys.stdout if file is None else file
        import inspect
        try:
            source = inspect.getsource(d.py_func)
        except (OSError, TypeError):
            source = "(source not available)\n"
        args = ", ".join(str(a) for a in self.signature.args)
        print(f"{d.__name__} ({args})\n{'-' * 80}\n{source}{'=' * 80}", file=file)

    @functools.cached_property
    def _type_annotation(self) -> TypeAnnotation:
        """numba-cuda's name: the type the front end inferred for each variable (``typemap``), typed again on
        first use (without libNVVM)."""
        variables = self._compile("llvm", self.cc).variable_types
        return TypeAnnotation(self._dispatcher.__name__, self.signature, variables)

    @property
    def _codelibrary(self) -> "LinkedCode":
        """numba-cuda's name: what the kernel is linked with when it is loaded."""
        return LinkedCode((*self._dispatcher._options.link, *self.links), self.cooperative)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize: int = 0) -> int:
        """The most blocks a cooperative launch of this kernel may have on the current device, for `blockdim`
        (an int or a tuple) and `dynsmemsize` bytes of dynamic shared memory (numba-cuda's method of its
        overloads; the kernel is loaded on the current device for it)."""
        return self._dispatcher._kernel(self.signature).max_cooperative_grid_blocks(blockdim, dynsmemsize)

    def __repr__(self) -> str:
        return f"<cubridge.CompiledKernel {self._dispatcher.__name__}{tuple(map(str, self.signature.args))}>"


class LinkedCode:
    """What a compiled kernel is linked with when it is loaded (numba-cuda's code library, by its attribute names):
    ``_linking_files``, the items jit's ``link=`` gave and those of the external functions the kernel calls
    (cubridge links no device runtime library: a grid sync is compiled into the kernel itself), and
    ``use_cooperative``, whether it is launched cooperatively."""

    __slots__ = ("_linking_files", "use_cooperative")

    def __init__(self, items, cooperative: bool):
        self._linking_files = tuple(items)  # in link order
        self.use_cooperative = cooperative

    def __repr__(self) -> str:
        return f"<cubridge.LinkedCode {len(self._linking_files)} link items, cooperative={self.use_cooperative}>"


def _toolkit_tool(name: str) -> str | None:
    for home in _linker.toolkit_homes():
        path = os.path.join(home["path"], "bin", name)
        if os.access(path, os.X_OK):
            return path
    return None


def per_signature(overloads: SignatureDict, signature, read, specialized: bool = False) -> Any:
    """numba-cuda's ``signature=None`` rule: one value for `signature`; for a specialized dispatcher (made with
    signatures, compiling no others) the value of its first signature; else a dict over every compiled one."""
    if signature is not None:
        return read(overloads[signature])
    if specialized and overloads:
        return read(next(iter(overloads.values())))
    return SignatureDict((sig, read(k)) for sig, k in overloads.items())
