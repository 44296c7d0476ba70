"""The one import of numba for the package, with its start-up kept short.

Every module that compiles host code takes ``nb`` from here. On its first
compile or cache load, numba imports its array-math module, which asks
whether SciPy's BLAS is there by importing SciPy: a quarter to half a second
where SciPy is installed, for linear algebra that seqalign never compiles.
That module is imported here, once, while SciPy is hidden (only if nothing
has imported SciPy yet); SciPy is importable again right after.
"""

from __future__ import annotations

import sys


def _import_numba():
    hide = "scipy" not in sys.modules
    if hide:
        sys.modules["scipy"] = None  # an import of scipy now fails at once
    try:
        import numba
        import numba.np.arraymath  # noqa: F401 - the module whose import asks for SciPy
    finally:
        if hide and sys.modules.get("scipy", 0) is None:
            del sys.modules["scipy"]
    return numba


nb = _import_numba()
