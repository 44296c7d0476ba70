"""SIGINT, SIGTERM and SIGHUP during a run: one exception in the main thread, and the moments it must wait.

``handled()`` (the runner, around a run) makes each of the three signals
raise ``Interrupted`` in the main thread, which then removes the temporary
output; a signal that is ignored (``nohup``) or handled by the embedding
program is left alone. The main thread only waits (with timeouts) while the
other threads read, align and write, so the exception comes within a
fraction of a second even while a compiled call runs for minutes elsewhere.

``critical()`` marks the few steps that must not be cut in two (a temporary
file made and recorded, a rename and its bookkeeping): a signal that comes
during one is raised at its end. After the first ``Interrupted`` of a run
further signals are ignored, so that the cleanup it starts runs to its end.
The state is the main thread's (Python runs signal handlers there only).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """A signal ended the run; the exit status is 128 + its number (130, 143, 129)."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_critical = 0  # depth of critical() in progress
_pending: int | None = None  # a signal that came during a critical step
_raised = False  # Interrupted was raised in this run: further signals are ignored


def _handler(signum, frame):
    global _pending, _raised
    if _raised:
        return
    if _critical:
        _pending = signum
        return
    _raised = True
    raise Interrupted(signum)


@contextmanager
def handled():
    """Inside: SIGINT, SIGTERM, SIGHUP raise ``Interrupted`` in the main thread (where they are not
    ignored or handled by the program already). A no-op outside the main thread."""
    global _pending, _raised
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    _pending, _raised = None, False
    try:
        for sig in SIGNALS:
            old = signal.getsignal(sig)
            if old in (signal.SIG_DFL, signal.default_int_handler):
                previous[sig] = old
                signal.signal(sig, _handler)
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def critical():
    """A step a signal must not cut in two: a signal during it is raised when it ends."""
    global _critical, _pending, _raised
    _critical += 1
    try:
        yield
    finally:
        _critical -= 1
        if not _critical and _pending is not None and not _raised:
            signum, _pending = _pending, None
            _raised = True
            raise Interrupted(signum)
