"""The one import of numba for the package: where its cache goes, a short start-up, the first-run notice.

Every module that compiles host code takes ``nb`` from here.

**Cache folder.** Compiled functions are cached (``cache=True``) in the
package's ``__pycache__`` folders, else in the user's cache folder
(``~/.cache/numba``), or in ``NUMBA_CACHE_DIR`` when that is set and
writable. Where none of these can be written (a read-only install and a
read-only or missing home, as in a container run as another user), numba
would stop every import with a traceback; ``NUMBA_CACHE_DIR`` is then set,
before numba is imported, to a folder of this user's under the system's
temporary folder (a fresh one when that is not safely ours). The checks are
a few ``access`` calls, done once. ``CACHE_FOLDER`` is where the cache goes.

**Shipped caches.** A wheel carries the caches compiled while it was built
(``setup.py``, ``precompile``) beside the modules. Where those folders cannot
be written, numba would not read them either; the first run then copies
them once into the cache folder chosen above (``_seed``), in numba's own
layout, so that a read-only install still starts without compiling.

**First run.** ``CompileNotice`` says on stderr that a run compiles and how
long it took, whenever numba compiles during the run: the time is that of
numba's own compile events, which only a compile fires (a cache load fires
none), so a run that compiles nothing says nothing. ``seqalign compile`` and
the install cache what the common runs need, but not everything a run can
need (``precompile``: the 64-bit score specializations are left to their
first use); a run that needs one of those after an install therefore says
so too. The marker of this version and family
(``seqalign-VERSION-FAMILY.compiled``), written after the first successful
run (quiet or not), only says whether a compile is expected at the start
(``active``: the runner's progress bar waits for the first chunk then).

**Start-up.** On its first compile or cache load, numba imports its
array-math module, which asks whether SciPy's BLAS is there by importing
SciPy: a quarter to half a second where SciPy is installed, for linear
algebra that seqalign never compiles. That module is imported here, once,
while SciPy is hidden (only if nothing has imported SciPy yet); SciPy is
importable again right after. So are coverage (numba's reports of compiled
lines, which a coverage run has imported already) and PyYAML (numba's
settings file, ``.numba_config.yaml``, read from the working folder: PyYAML
stays visible when that file is there).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
import time

from ._version import __version__

PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _writable(folder: str) -> bool:
    """Whether a cache folder can be made and written: the nearest existing folder on its path is writable."""
    path = os.path.abspath(folder)
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def _source_folders() -> list[str]:
    """The package's folders that hold Python modules (numba caches beside each, in ``__pycache__``)."""
    found = []
    for root, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        if any(f.endswith(".py") for f in files):
            found.append(root)
    return found


def _user_cache() -> str:
    """The user-wide cache folder numba uses (its ``appdirs`` rule on Linux and other Unix systems)."""
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/numba")
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
    return os.path.join(base, "numba")


def _private_temp() -> str | None:
    """A cache folder of this user's under the temporary folder: kept across runs when it is safely ours
    (owned by us, a real folder, writable by nobody else), a fresh one otherwise."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    base = tempfile.gettempdir()
    if uid is not None:
        path = os.path.join(base, f"seqalign-numba-cache-{uid}")
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
            if (stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o022
                    and os.access(path, os.W_OK | os.X_OK)):
                return path
        except OSError:
            pass
    try:
        return tempfile.mkdtemp(prefix="seqalign-numba-cache-")
    except OSError:
        return None


def _cache_folder() -> str:
    """Where numba will cache the package's functions; sets NUMBA_CACHE_DIR where nothing else is writable."""
    given = os.environ.get("NUMBA_CACHE_DIR", "")
    if given and _writable(given):
        return given
    folders = _source_folders()
    if all(_writable(os.path.join(f, "__pycache__")) for f in folders):
        return os.path.join(PACKAGE, "__pycache__")
    user = _user_cache()
    if _writable(user):
        return user
    fallback = _private_temp()
    if fallback is None:
        return os.path.join(PACKAGE, "__pycache__")  # nothing is writable: numba says so itself
    os.environ["NUMBA_CACHE_DIR"] = fallback
    if "numba" in sys.modules:  # imported before this module: its configuration is read already
        sys.modules["numba"].config.CACHE_DIR = fallback
    return fallback


def _seed(folder: str):
    """Copy the caches shipped beside the modules (a wheel's, compiled at build time) into ``folder``,
    where numba looks when it cannot write beside the modules: ``<folder>/<dir>_<sha1 of dir path>``,
    numba's own layout. Once per version (a marker file); a function that already has an index there
    keeps it (its data files are never mixed with shipped ones)."""
    marker = os.path.join(folder, f"seqalign-{__version__}.seeded")
    if os.path.exists(marker):
        return
    try:
        for source in _source_folders():
            shipped = os.path.join(source, "__pycache__")
            names = os.listdir(shipped) if os.path.isdir(shipped) else []
            indexes = [n[:-4] for n in names if n.endswith(".nbi")]
            if not indexes:
                continue
            digest = hashlib.sha1(os.path.abspath(source).encode()).hexdigest()
            target = os.path.join(folder, f"{os.path.basename(source)}_{digest}")
            os.makedirs(target, exist_ok=True)
            for base in indexes:
                if os.path.exists(os.path.join(target, base + ".nbi")):
                    continue
                for name in names:  # the data files first, the index last: never an index without its data
                    if name.startswith(base + ".") and name.endswith(".nbc"):
                        shutil.copyfile(os.path.join(shipped, name), os.path.join(target, name))
                shutil.copyfile(os.path.join(shipped, base + ".nbi"), os.path.join(target, base + ".nbi"))
        with open(marker, "a"):
            pass
    except OSError:
        pass  # what could not be copied compiles on first use


CACHE_FOLDER = _cache_folder()
if CACHE_FOLDER != os.path.join(PACKAGE, "__pycache__"):
    _seed(CACHE_FOLDER)


#: what numba's import looks for and this package never uses: SciPy (linear algebra) and coverage (its
#: lines of compiled code reported to a coverage run, which would have imported it already)
_UNUSED = ("scipy", "coverage")
#: numba reads its settings from this file of the working folder with PyYAML, imported whether or not the
#: file is there (11 ms on the development machine, ``python -X importtime``): hidden where it is not
_NUMBA_CONFIG = ".numba_config.yaml"


def _import_numba():
    unused = _UNUSED if os.path.exists(_NUMBA_CONFIG) else _UNUSED + ("yaml",)
    hidden = [name for name in unused if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # an import of it now fails at once
    try:
        import numba
        import numba.np.arraymath  # noqa: F401 - the module whose import asks for SciPy
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return numba


nb = _import_numba()


def thread_count(threads: int) -> int:
    """The threads a CPU engine runs for ``-t threads``: at least one, at most numba's pool."""
    return max(1, min(threads, nb.config.NUMBA_NUM_THREADS))


class CompileNotice:
    """The stderr line of a run that compiles: ``seqalign: compiling the CPU engine (first run; cached
    afterwards)... 14.2 s``.

    Begun by numba's compile event in any thread, whenever it comes: the first
    run of a family, or a later run that needs a specialization nothing has
    compiled yet (64-bit scores after an install). ``close()`` ends the line
    with the compile time so far; while a compile is under way, as soon as it
    ends, so that the time is the whole compile's (the runner calls it once
    the first chunk is written, and at the end). ``interject()`` comes before
    any other stderr line while it is open: the line is ended there and the
    time comes on a line of its own. ``finish(ok)`` closes it, stops
    listening and, after a successful run, writes the marker. ``active``: a
    compile is expected (the first run of this version and family: no marker
    yet). Listening whenever ``enabled``; no listener at all when it is false
    (``-q``).
    """

    TEXT = "compiling the CPU engine (first run; cached afterwards)..."

    def __init__(self, family: str, enabled: bool = True, stream=None):
        self.marker = os.path.join(CACHE_FOLDER, f"seqalign-{__version__}-{family}.compiled")
        self.stream = stream
        self.lock = threading.Lock()
        self.depth = 0
        self.seconds = 0.0
        self.began = 0.0
        self.state = "idle"  # idle | open | broken (another line came) | closed
        self.closing = False  # close() came during a compile: the line ends when the compile does
        self.listener = None
        self.first = not os.path.exists(self.marker)  # no successful run of this version and family yet
        self.active = enabled and self.first
        if enabled:  # a compile events' listener costs nothing until numba compiles (a cache load fires none)
            from numba.core import event

            notice = self

            class _Listener(event.Listener):
                def on_start(self, ev):
                    notice._start()

                def on_end(self, ev):
                    notice._end()

            self.listener = _Listener()
            event.register("numba:compile", self.listener)

    def _write(self, text: str):
        stream = self.stream or sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass

    def _start(self):
        with self.lock:
            if self.depth == 0:
                self.began = time.perf_counter()
            self.depth += 1
            if self.state == "idle":
                self.state = "open"
                self._write(f"seqalign: {self.TEXT}")

    def _end(self):
        with self.lock:
            self.depth = max(self.depth - 1, 0)
            if self.depth == 0:
                self.seconds += time.perf_counter() - self.began
                if self.closing:
                    self._close(False)

    def _so_far(self) -> float:
        return self.seconds + (time.perf_counter() - self.began if self.depth else 0.0)

    def interject(self):
        """Another stderr line is coming: end the open line first."""
        with self.lock:
            if self.state == "open":
                self._write("\n")
                self.state = "broken"

    def close(self, interrupted: bool = False):
        """End the line with the compile time (just end it when the run was interrupted); while a compile is
        under way, once it ends."""
        with self.lock:
            if self.depth and not interrupted and self.state in ("open", "broken"):
                self.closing = True
            else:
                self._close(interrupted)

    def _close(self, interrupted: bool):
        """close() with the lock held."""
        self.closing = False
        if self.state == "open":
            self._write("\n" if interrupted else f" {self._so_far():.1f} s\n")
        elif self.state == "broken" and not interrupted:
            self._write(f"seqalign: compiled the CPU engine in {self._so_far():.1f} s\n")
        if self.state != "idle":
            self.state = "closed"

    def finish(self, ok: bool, interrupted: bool = False):
        """Close the line now, stop listening and, after a successful run, write the marker."""
        with self.lock:
            self._close(interrupted)
        if self.listener is not None:
            from numba.core import event

            try:
                event.unregister("numba:compile", self.listener)
            except ValueError:
                pass
            self.listener = None
        if ok and self.first:
            try:
                with open(self.marker, "a"):
                    pass
            except OSError:
                pass
