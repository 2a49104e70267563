"""cubridge: GPU code from different libraries and languages working together, with no copies.

Four faces, one system: arrays (CUDA Array Interface v3, DLPack), memory (EMM plugin interface v1),
code (Python functions compiled to PTX / LTO-IR), calls (XLA custom calls through JAX).
Importing cubridge never touches the GPU: the driver is loaded by the first GPU operation.
"""
from ._core import Error, __version__
from . import _core as _core_module, _toolkit_search
_toolkit_search.register(_core_module)  # NVIDIA's toolkit wheels in this environment, before any compile
from ._driver import *  # noqa: F401,F403
from ._driver import __all__ as _driver_all
from ._memory import *  # noqa: F401,F403
from ._memory import __all__ as _memory_all
from ._arrays import *  # noqa: F401,F403
from ._arrays import __all__ as _arrays_all
from ._linker import *  # noqa: F401,F403
from ._linker import __all__ as _linker_all
from ._types import *  # noqa: F401,F403
from ._types import __all__ as _types_all
from ._compiler import *  # noqa: F401,F403
from ._compiler import __all__ as _compiler_all
from ._kernels import *  # noqa: F401,F403
from ._kernels import __all__ as _kernels_all
from ._intrinsics import *  # noqa: F401,F403
from ._intrinsics import __all__ as _intrinsics_all
from ._records import *  # noqa: F401,F403
from ._records import __all__ as _records_all
from ._external_functions import *  # noqa: F401,F403
from ._external_functions import __all__ as _external_functions_all
from ._numba_dropin import install_numba  # noqa: F401  (numba-cuda programs served by cubridge)
from . import bf16  # noqa: F401  (numba.cuda.bf16's names)
from .bf16 import bfloat16  # noqa: F401

__all__ = ["__version__", "Error", *_driver_all, *_memory_all, *_arrays_all, *_linker_all, *_types_all, *_compiler_all,
           *_kernels_all, *_intrinsics_all, *_records_all, *_external_functions_all, "install_numba", "bfloat16"]
