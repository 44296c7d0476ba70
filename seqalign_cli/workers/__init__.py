"""Worker processes: the host path of a run spread over interpreters that do not share one lock.

A run with workers (``--workers N``, or the default where it pays; see
``count``) is cutadapt's parallel pipeline with whole chunks a worker:

* the main process reads the input files once and cuts them into pieces
  of whole records, unparsed (``io.cut``), each piece an anonymous memory
  file;
* each worker process (``child``) takes a chunk's pieces, reads them with
  the family's reader, aligns the chunk on its backend (its own GPU
  context on the run's GPU, several workers sharing one GPU; or the CPU
  engine with its share of the threads), formats it with the family's
  writer and hands the bytes back in a memory file of its own;
* the main process writes the pieces of output in input order (``pool``),
  after the format's header, into the output file it commits as a run
  without workers does.

Nothing travels as a pickled object but small messages; data goes through
memory files passed as descriptors over each worker's socket. Measured on
one H100 and its 16 cores against one process whose threads share the
interpreter lock: see ``ARCHITECTURE.md`` (host path) and ``count``.

A run takes workers when its inputs can be cut (``inputs.pieces()``: files
read in lockstep or one interleaved file) and its format's output is the
concatenation of its chunks' after a header (``writers.CUTTABLE``);
otherwise it runs in one process as before (``runner``).
"""

from __future__ import annotations

import os

#: input bytes under which the default runs in one process: starting workers (an interpreter, numpy,
#: numba and the GPU driver each, about a second of CPU) does not pay for a few batches
SMALL_INPUT = 64 << 20
#: the most workers the default starts (``count``)
MOST = 8


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def count(cfg, asked: int | None) -> int:
    """The worker processes of the run ``cfg`` (``asked``: ``--workers``; None or 0 the default); 1 or
    fewer: none, the run stays in one process.

    The default: none on the CPU backend (its engine's threads already fill
    the cores), for inputs that cannot be cut or formats that cannot be
    concatenated, and for regular input files of fewer than ``SMALL_INPUT``
    bytes; else one worker for every two cores, ``MOST`` at most (so none on
    a machine of 2 or 3 cores).
    """
    from ..writers import CUTTABLE

    pieces = getattr(cfg.inputs, "pieces", None)
    cuttable = pieces is not None and pieces() is not None and (cfg.family, cfg.out_format) in CUTTABLE
    if asked is not None and asked > 0:
        return asked if cuttable else 1
    if not cuttable or cfg.backend == "cpu":
        return 1
    sizes = [_size(path) for path in pieces()[0]]
    if all(size is not None for size in sizes) and sum(sizes) < SMALL_INPUT:
        return 1
    return min(MOST, cpus() // 2)


def _size(path: str) -> int | None:
    """Bytes of a regular file, None for stdin, a FIFO or what cannot be seen."""
    import stat

    if path == "-":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None
