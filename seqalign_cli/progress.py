"""The progress bar of a run on a terminal: a count, a rate, and how far the run has come where that is known.

``Meter`` reads how far a run has come, for the calling thread that updates
the bar ten times a second:

* the records aligned (the runner's count: the batches whose results came,
  and the records of the pieces done of a CPU batch under way, which a
  batch of long records is aligned in: ``backends.cpu.CpuBackend``), and
  their rate: records per second over the last ``WINDOW`` seconds;
* the fraction done, from the first of these that is known:
  1. a total in records (units of the family: pairs, triplets, reads),
     announced by a reader that knows it (``announce_total``: the pair
     lines of a part of a pairs file, counted first; an input held in
     memory): the records aligned against it;
  2. the range of records of the run's main input file that the run reads
     (``announce_records``: a part of a sharded run, counted first): the
     records its reader has read in that range, against the range;
  3. the bytes consumed of the main input file against its size. The main
     file is ``main_file`` of the family's input description: the queries
     of a pair run, the first file of a triplet run, the reads of a graph
     run. For gzip these are the compressed bytes consumed from the file; a
     FASTA/FASTQ reader (``io.fastx``) tells the meter when it opens a file
     (``opened``) and keeps the counts as it reads;
  4. none: stdin, a FIFO, a pairs file (``--pairs``) read whole: the count
     and the rate alone.

The reader works a chunk or two ahead of the aligning: 2 and 3 measure
where the reader is, and are scaled by the records aligned over the records
the reader has made (``read``), so that the fraction follows the records
aligned and is 1 once the reader has ended and every record is aligned.

One run at a time shows a bar (it is the terminal's): the runner installs its
meter for the run (``watch``) only when the bar is shown, so readers pay a
lookup per file opened and nothing more when it is not. ``Bar`` draws it
with rich on stderr; the fraction, the rate and the text are computed here
without a terminal.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

#: seconds of history behind the rate
WINDOW = 5.0

#: the meter of the run whose bar is shown, if any
_meter: Meter | None = None


def watch(meter: Meter | None):
    """Make ``meter`` the one readers report to (None: none)."""
    global _meter
    _meter = meter


def opened(reader):
    """A FASTA/FASTQ reader opened its file (it has ``path``, ``count``, ``consumed`` and ``size``)."""
    meter = _meter
    if meter is not None:
        meter.opened(reader)


def announce_total(records: int):
    """The run holds ``records`` records (in the family's units): the bar's total."""
    meter = _meter
    if meter is not None:
        meter.total = records


def announce_records(path: str, first: int, count: int):
    """The run reads records ``first`` .. ``first + count - 1`` (0-based) of the file ``path``."""
    meter = _meter
    if meter is not None and path == meter.main_file:
        meter.part = (first, count)


@dataclass(frozen=True)
class Reading:
    """What the bar shows at one moment."""

    records: int
    rate: float | None  # records per second, None until two readings apart in time
    fraction: float | None  # of the run done, 0 to 1; None without a total


class Meter:
    """How far one run has come; ``main_file``: the input whose bytes read measure it (None: no file does)."""

    def __init__(self, main_file: str | None = None, clock=time.monotonic):
        self.main_file = main_file if main_file != "-" else None
        self.clock = clock
        #: records in the run (family units), when a reader announced it
        self.total: int | None = None
        #: (first, count): the records of the main file the run reads, when a reader announced them
        self.part: tuple[int, int] | None = None
        #: the reader of the main file, once opened (the last one opened, when it is read more than once)
        self.source = None
        self._samples: deque[tuple[float, int]] = deque()

    def opened(self, reader):
        """A reader opened its file (``path``; ``count`` records read, ``consumed`` bytes of ``size``)."""
        if self.main_file is not None and reader.path == self.main_file:
            self.source = reader

    def fraction(self, records: int, read: int | None = None) -> float | None:
        """The fraction of the run done once ``records`` records are aligned, of ``read`` made by the reader
        (None: as many); None without a total."""
        if self.total is not None:
            return min(records / self.total, 1.0) if self.total > 0 else 1.0
        source = self.source
        if source is None:
            return None
        if self.part is not None:
            first, count = self.part
            where = max(source.count - first, 0) / count if count > 0 else 1.0
        elif source.size is not None:
            where = source.consumed / source.size if source.size > 0 else 1.0
        else:
            return None
        if read:
            where *= min(records / read, 1.0)
        return min(where, 1.0)

    def rate(self, records: int) -> float | None:
        """Records per second over the last ``WINDOW`` seconds (since the first reading, early on)."""
        now = self.clock()
        samples = self._samples
        samples.append((now, records))
        while len(samples) > 2 and now - samples[1][0] >= WINDOW:
            samples.popleft()
        then, before = samples[0]
        return (records - before) / (now - then) if now > then else None

    def read(self, records: int, read: int | None = None) -> Reading:
        """What the bar shows once ``records`` records are aligned, of ``read`` made by the reader."""
        return Reading(records, self.rate(records), self.fraction(records, read))


def describe(reading: Reading, unit: str) -> str:
    """The count and the rate as the bar writes them: ``12,345 pairs aligned, 1,234 pairs/s``."""
    text = f"{reading.records:,} {unit} aligned"
    if reading.rate is not None:
        rate = reading.rate
        text += f", {rate:,.0f} {unit}/s" if rate >= 10 else f", {rate:.1f} {unit}/s"
    return text


class Bar:
    """The bar on stderr (rich): spinner, bar, percentage and time left where a fraction is known; the count,
    the rate and the time elapsed always. Transient: gone once the run ends."""

    def __init__(self, meter: Meter, unit: str):
        from rich.console import Console
        from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        class WithTotal:
            """A column shown only once the task has a total."""

            def __init__(self, column):
                self.column = column

            def __getattr__(self, name):
                return getattr(self.column, name)

            def __call__(self, task):
                return self.column(task) if task.total is not None else ""

        self.meter, self.unit = meter, unit
        self.progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), WithTotal(BarColumn()), TaskProgressColumn(),
            TextColumn("{task.fields[count]}"), TimeElapsedColumn(), WithTotal(TimeRemainingColumn()),
            console=Console(stderr=True), transient=True)
        self.progress.start()
        self.task = self.progress.add_task("aligning", total=None, count="")

    def update(self, records: int, read: int | None = None):
        reading = self.meter.read(records, read)
        if reading.fraction is not None:
            self.progress.update(self.task, total=1.0, completed=reading.fraction, count=describe(reading, self.unit))
        else:
            self.progress.update(self.task, completed=records, count=describe(reading, self.unit))

    def stop(self):
        self.progress.stop()
