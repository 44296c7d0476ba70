"""The run statistics file (``--stats FILE``): the run summary and histograms of scores and lengths, as JSON
that MultiQC reads as custom content.

What is gathered (``Collector``, in the writer thread, from each chunk's
results once finished; nothing when ``--stats`` is not given):

* ``records``, and among them ``unaligned``: the records whose alignment is
  empty (no column: a local alignment scoring 0, two empty sequences);
* a histogram of the scores of every record;
* a histogram of the alignment lengths of the aligned records, the length
  being what the family's results measure (``aligned_spans``): the query span
  ``qend - qstart`` of a pair, the span over A of a triplet, the read span of
  a read against a graph. Score-only runs whose mode leaves the start free
  do not know it: those records are counted as ``not_computed``.
  So ``sum(length counts) + unaligned + not_computed == records``.

The bins (``Histogram``): integer values in at most ``BINS`` bins whose width
is the smallest power of two that holds every value seen, bin i covering
``[start + i * width, start + (i + 1) * width)`` with ``start`` a multiple of
the width. Bins are regrouped in pairs as the range grows, so the result
depends only on the values, not on how they came in chunks.

The file (``document``): a MultiQC custom-content section of ``plot_type``
``table``, one row per run (the sample: the file's name less ``_mqc.json``
or ``.json``), with the main numbers; every run whose file MultiQC finds
(names ending ``_mqc.json``) is a row of the same table (the section ``id``
is the same). Everything, histograms included, is also under the key
``seqalign``, which MultiQC leaves alone. The file is written through a
temporary name and renamed at the end of a successful run (``StatsFile``);
``--stats`` naming an input or the output is a usage error before any work.
"""

from __future__ import annotations

import json
import os
import re

from .errors import UsageError
from .writers.output import OutputFile, same_file

#: most bins of a histogram
BINS = 64

#: the MultiQC section every run's file adds a row to
SECTION = "seqalign"

#: the table's columns: (key, MultiQC header)
COLUMNS = {
    "family": {"title": "Family", "description": "pairwise, triplet or graph"},
    "records": {"title": "Records", "description": "pairs, triplets or reads aligned", "format": "{:,.0f}"},
    "unaligned": {"title": "Unaligned", "description": "records whose alignment is empty", "format": "{:,.0f}"},
    "score_mean": {"title": "Mean score", "description": "mean score of every record", "format": "{:,.1f}"},
    "length_mean": {"title": "Mean length", "description": "mean alignment length of the aligned records "
                    "(pairs: query span; triplets: span over A; graphs: read span)", "format": "{:,.1f}"},
    "cells": {"title": "Cells", "description": "dynamic-programming cells computed", "format": "{:,.3g}"},
    "gcups": {"title": "GCUPS", "description": "billions of cells per second of wall time", "format": "{:,.2f}"},
    "seconds": {"title": "Wall s", "description": "wall time of the run, seconds", "format": "{:,.2f}"},
    "backend": {"title": "Backend", "description": "cpu or cuda"},
    "device": {"title": "Device", "description": "the device that aligned"},
    "threads": {"title": "Threads", "description": "CPU threads", "format": "{:,.0f}"},
}


class Histogram:
    """Counts of integers in at most ``BINS`` bins of one power-of-two width (see the module)."""

    def __init__(self):
        self.width = 1
        self.first = 0  # the first bin's index (its start / width)
        self.counts = None  # numpy int64, one count per bin from ``first``
        self.lo = self.hi = 0  # the smallest and largest values seen

    @property
    def total(self) -> int:
        return int(self.counts.sum()) if self.counts is not None else 0

    def add(self, values):
        import numpy as np

        values = np.asarray(values, np.int64)
        if not values.size:
            return
        lo, hi = int(values.min()), int(values.max())
        if self.counts is not None:
            lo, hi = min(lo, self.lo), max(hi, self.hi)
        width = self.width
        while hi // width - lo // width >= BINS:
            width *= 2
        first = lo // width
        counts = np.bincount(values // width - first, minlength=hi // width - first + 1)
        if self.counts is not None:  # the bins so far, each inside one of the new ones
            old = (np.arange(len(self.counts)) + self.first) * self.width // width - first
            np.add.at(counts, old, self.counts)
        self.counts, self.first, self.width, self.lo, self.hi = counts, first, width, lo, hi

    def as_dict(self) -> dict:
        counts = self.counts.tolist() if self.counts is not None else []
        return {"start": self.first * self.width, "width": self.width, "counts": counts}


class Collector:
    """What the statistics file reports of a run's results, gathered chunk by chunk (``add``)."""

    def __init__(self):
        self.records = self.unaligned = self.not_computed = 0
        self.score_sum = self.length_sum = 0
        self.scores, self.lengths = Histogram(), Histogram()
        #: what the lengths measure (the results' ``SPAN``), None while no results had a span
        self.span: str | None = None

    def add(self, results):
        """One chunk's finished results (``protocols.Results``: ``score``, and ``aligned_spans()`` unless None)."""
        import numpy as np

        score = np.asarray(results.score, np.int64)
        self.records += len(score)
        self.scores.add(score)
        self.score_sum += int(score.sum())
        spans = results.aligned_spans()
        if spans is None:
            return
        self.span = results.SPAN
        aligned, span = spans
        self.unaligned += int(len(aligned) - np.count_nonzero(aligned))
        known = span[aligned & (span >= 0)]
        self.not_computed += int(np.count_nonzero(aligned)) - len(known)
        self.lengths.add(known)
        self.length_sum += int(known.sum())

    def as_dict(self) -> dict:
        lengths = None
        if self.span is not None:
            lengths = {"of": self.span, **self.lengths.as_dict(), "unaligned": self.unaligned,
                       "not_computed": self.not_computed}
        return {"scores": self.scores.as_dict(), "lengths": lengths}


def sample_name(path: str) -> str:
    """The row a file makes in MultiQC's table: its name less ``_mqc.json`` (or ``.json``, ``.gz``)."""
    name = os.path.basename(path) if path != "-" else "seqalign"
    for suffix in (".gz", ".json", "_mqc"):
        if name.lower().endswith(suffix):
            name = name[:-len(suffix)]
    return name or "seqalign"


def _mean(total: int, count: int) -> float | None:
    return round(total / count, 3) if count else None


def document(summary, collected: Collector, family: str, command_line: str, sample: str) -> dict:
    """The JSON of a run: a MultiQC custom-content table section, the whole under ``seqalign`` too."""
    from ._version import __version__

    aligned_known = collected.lengths.total
    row = {
        "family": family, "records": summary.records, "unaligned": collected.unaligned,
        "score_mean": _mean(collected.score_sum, collected.records),
        "length_mean": _mean(collected.length_sum, aligned_known),
        "cells": summary.cells, "gcups": round(summary.gcups, 4), "seconds": round(summary.seconds, 4),
        "backend": summary.backend, "device": summary.device, "threads": summary.threads,
    }
    everything = {
        "version": __version__, "command_line": command_line, "family": family, "unit": summary.unit,
        "records": summary.records, "aligned": collected.records - collected.unaligned,
        "unaligned": collected.unaligned, "cells": summary.cells, "gcups": summary.gcups,
        "seconds": summary.seconds, "backend": summary.backend, "device": summary.device,
        "threads": summary.threads, "peak_mb": round(summary.peak_mb, 1),
        "stages": summary.stages, "steps": summary.steps or {},
        "histograms": collected.as_dict(),
    }
    return {
        "id": SECTION,
        "section_name": "seqalign",
        "description": "Alignment runs of seqalign, one row per run; histograms of scores and alignment "
                       "lengths under the key 'seqalign' of each file.",
        "plot_type": "table",
        "pconfig": {"id": "seqalign_runs", "title": "seqalign: runs", "col1_header": "Run"},
        "headers": COLUMNS,
        "data": {sample: row},
        "seqalign": everything,
    }


class StatsFile:
    """Where ``--stats`` goes: checked before any work (not an input, not the output), written through a
    temporary name (made once the run starts: ``prepare``) and renamed at the end (``commit``)."""

    def __init__(self, path: str, output: str, inputs=()):
        if path == "-" and output == "-":
            raise UsageError("--stats - and the output both go to stdout; give --stats a file name or -o one")
        for name in inputs:
            if name and name != "-" and (same_file(path, name) or _same_name(path, name)):
                raise UsageError("--stats names an input file; choose another name", path=path)
        if output != "-" and (same_file(path, output) or _same_name(path, output)):
            raise UsageError("--stats names the output file (-o); choose another name", path=path)
        self.path = path
        self.out = OutputFile(path, compress=path.lower().endswith(".gz"))

    def prepare(self):
        """Make the temporary file (a folder that cannot be written is a usage error before any work)."""
        if not self.out.direct:
            self.out.make_temp()

    def commit(self, doc: dict):
        stream = self.out.open()
        stream.write((dumps(doc) + "\n").encode())
        self.out.commit()

    def discard(self, close: bool = True):
        self.out.discard(close=close)


def dumps(doc: dict) -> str:
    """JSON indented by key, with lists of numbers (the histograms' counts) on one line."""
    text = json.dumps(doc, indent=1)
    return re.sub(r"\[\s+([-0-9.,eE+\s]+?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)


def _same_name(a: str, b: str) -> bool:
    """Whether two names are one path (files that may not exist yet), links resolved."""
    return os.path.realpath(a) == os.path.realpath(b)
