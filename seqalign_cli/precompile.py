"""``python -m seqalign_cli.precompile [--quiet] [--wide] [--backend=cpu|cuda] [--into=DIR] [SUBCOMMAND...]``:
compile the CPU engine ahead of the first run, the wheel build's entry (``setup.py``).

The jobs, their inputs and the compiled host steps are ``compile_jobs``'s,
which runs them through the command line it is given; here that is this
package's own (``cli.main``), as ``seqalign compile`` gives it too. So the
command line runs the jobs without importing this module, and ``JOBS``,
``WIDE_JOBS``, ``WIDE_MATCH``, ``jobs`` and ``write_inputs`` are
``compile_jobs``'s, named here as well.
"""

from __future__ import annotations

import sys

from . import compile_jobs
from .cli import main as command_line
from .compile_jobs import JOBS, WIDE_JOBS, WIDE_MATCH, jobs, write_inputs

__all__ = ["JOBS", "WIDE_JOBS", "WIDE_MATCH", "jobs", "main", "precompile", "run_jobs", "write_inputs"]


def run_jobs(folder: str, say=lambda m: None, commands=None, backend: str = "cpu", wide: bool = False) -> int:
    """``compile_jobs.run_jobs`` through the command line: the number of jobs that failed (0 when all ran)."""
    return compile_jobs.run_jobs(folder, command_line, say, commands, backend, wide)


def precompile(say=lambda m: print(m, file=sys.stderr), commands=None, backend: str = "cpu",
               wide: bool = False) -> tuple[float, int]:
    """``compile_jobs.precompile`` through the command line (what ``seqalign compile`` runs): (seconds, jobs
    that failed)."""
    return compile_jobs.precompile(command_line, say, commands, backend, wide)


def main(argv=None) -> int:
    """``compile_jobs.main`` through the command line: 0 when every job ran."""
    return compile_jobs.main(argv, command_line)


if __name__ == "__main__":
    sys.exit(main())
