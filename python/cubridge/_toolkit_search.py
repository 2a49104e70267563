"""Where NVIDIA's pip wheels of the CUDA toolkit may be: this environment's site-packages directories, in the
order cuda-pathfinder searches them (the environment's own, the user's site after a virtual environment's and
before the system's), then the other entries of sys.path (PYTHONPATH, ``pip install --target``).

The C++ toolkit search looks in ``<dir>/nvidia/cu13`` for each, after the variables and before $CONDA_PREFIX;
the list is handed over at import, before anything is compiled. Only directory names are computed here (no file
is opened), so importing stays fast."""
from __future__ import annotations

import os
import site
import sys

from . import _logging


def site_directories() -> list[str]:
    """The directories, in search order, each once (existing ones only)."""
    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE:
        user = site.getusersitepackages()
        if user:
            dirs.insert(1 if sys.prefix != sys.base_prefix else 0, user)
    dirs += [p for p in sys.path if p]
    out, seen = [], set()
    for d in dirs:
        real = os.path.realpath(d)
        if real not in seen and os.path.isdir(real):
            seen.add(real)
            out.append(d)
    return out


def register(core) -> None:
    dirs = site_directories()
    try:
        core._set_wheel_directories(dirs)
    except RuntimeError as e:  # a re-import after this process already found its toolkit: that one stays
        log = _logging.debug_logger()
        if log is not None:
            log.debug("toolkit search: %s", e)
