"""cubridge's records go to ``logging.getLogger("cubridge")``. Importing cubridge never imports logging (it
costs milliseconds of the cold `cubridge compile`): a process that has not imported logging has configured no
handler, so there is nothing to emit to and the record is not even built."""
from __future__ import annotations

import sys


def debug_logger():
    """The "cubridge" logger when it emits DEBUG records, else None."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    log = logging.getLogger("cubridge")
    return log if log.isEnabledFor(logging.DEBUG) else None
