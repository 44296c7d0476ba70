"""Worker processes: the host path of a run spread over interpreters that do not share one lock.

A run with workers (``--workers N``; none by default, see ``count``) is
cutadapt's parallel pipeline with whole chunks a worker:

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

A run takes workers when asked, its inputs can be cut (``inputs.pieces()``:
files read in lockstep or one interleaved file) and its format's output is
the concatenation of its chunks' after a header (``writers.CUTTABLE``);
otherwise it runs in one process as before (``runner``).
"""

from __future__ import annotations


def count(cfg, asked: int | None) -> int:
    """The worker processes of the run ``cfg`` (``asked``: ``--workers``); 1: none, the run stays in one
    process.

    Workers are asked for, never the default: on one H100, workers each with
    a CUDA context of its own on the one GPU ran 10,000,000 GASAL2 pairs at
    0.68-0.76x one process with traceback (4 and 8 workers; 16 ran out of
    GPU memory) and 1.31x score only, and the 16 bp-20 kb mix slower too
    (``benchmarks/decisions/workers.md``). A run whose inputs cannot be cut
    or whose format cannot be concatenated stays in one process whatever is
    asked.
    """
    from ..writers import CUTTABLE

    cuttable = cfg.inputs.pieces() is not None and (cfg.family, cfg.out_format) in CUTTABLE
    return asked if asked is not None and asked > 1 and cuttable else 1
