"""Test helpers shared by several test modules: result comparison, TSV parsing, the GPUs at hand."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

#: the per-pair arrays two pairwise results must agree on (CIGARs compared as text)
RESULT_FIELDS = ("score", "qstart", "qend", "tstart", "tend", "cigar.count", "stats")

#: the pairwise TSV columns and the integer ones among them
TSV_COLUMNS = ["qname", "qlen", "qstart", "qend", "tname", "tlen", "tstart", "tend", "score", "cigar", "nm"]
TSV_INTS = ("qlen", "qstart", "qend", "tlen", "tstart", "tend", "score", "nm")


def assert_same_results(a, b, what=("a", "b")):
    """Two pairwise results of the same pairs are identical, field by field and CIGAR by CIGAR."""
    for name in RESULT_FIELDS:
        x, y = attrgetter(name)(a), attrgetter(name)(b)
        bad = np.flatnonzero((x != y).reshape(a.size, -1).any(axis=1))
        assert not len(bad), f"{name} differs for pairs {bad[:5]}: {what[0]} {x[bad[:5]]} {what[1]} {y[bad[:5]]}"
    assert a.cigars() == b.cigars()


def parse_tsv(text: str) -> list[dict]:
    """The rows of a pairwise TSV output as dicts (integers converted); checks the header and widths.

    The header starts with '#'; a '*' (not computed: score only) stays a string.
    """
    lines = text.splitlines()
    assert lines, "no output at all"
    assert lines[0].startswith("#") and lines[0][1:].split("\t") == TSV_COLUMNS
    rows = []
    for line in lines[1:]:
        f = line.split("\t")
        assert len(f) == len(TSV_COLUMNS), line
        row = dict(zip(TSV_COLUMNS, f))
        for k in TSV_INTS:
            row[k] = row[k] if row[k] == "*" else int(row[k])
        rows.append(row)
    return rows


class FakeDeviceEngine:
    """The job cycle of a family's engine on a pretend GPU (``backends/cuda/device.DeviceEngine``'s calls).

    A subclass gives ``align(batch, cfg, subset, out)``; ``submit`` does the
    work at once (so work that cannot be queued raises there, as the real
    engine's does) and ``collect`` has nothing left to do.
    """

    def __init__(self, device):
        self.device = device
        self.seconds = {}
        self.releases = 0

    def submit(self, batch, cfg, subset, out):
        self.align(batch, cfg, subset, out)
        return "job"

    def collect(self, job):
        assert job == "job"

    def release(self):
        self.releases += 1


def gpu_count() -> int:
    """The GPUs the cuda backend can use here (0 without a usable GPU)."""
    from seqalign_cli.backends import gpu_status

    if not gpu_status()[0]:
        return 0
    from seqalign_cli.backends.cuda import device_count

    return device_count()


COMPILE_NOTICES = ("seqalign: compiling the CPU engine", "seqalign: compiled the CPU engine")


def messages(err: str) -> list[str]:
    """The lines of a run's stderr less the one-time notice that the CPU engine is being compiled
    (printed on a cold cache, so present or not depending on which test ran first)."""
    return [line for line in err.splitlines() if not line.startswith(COMPILE_NOTICES)]
