"""The family table: what each algorithm family brings, and the one place that is asked for it.

A family is one kind of alignment (pairs today; triplets and graphs follow
the same shape) with one subcommand. Its entry says:

* ``chunks``: how its inputs are read: ``chunks(inputs, batch_size)`` yields
  chunks in input order (``chunks(inputs, batch_size, (K, N))``: those of
  the K-th of N parts of the input, ``--shard``); a chunk has ``batch()``,
  the encoded records a backend aligns, and whatever its writers read
  (names, sequences);
* ``cpu``: its CPU engine class, ``Engine(threads)`` with ``align(batch, cfg)``;
* ``cuda``: its engine on one GPU, ``Engine(device)`` (see
  ``backends/cuda/device.DeviceEngine``), or None when it has none; and
  ``cuda_hooks``: what the GPU scheduler asks of the family (which records
  a GPU can hold, how results are allocated);
* ``unit``: what it counts ("pairs"), for progress and the summary; cells
  are counted by its batches (``cells()`` and ``cells_each()``);
* its output formats: the writers registered for it in ``writers.WRITERS``;
* ``checks``: the kernel variants ``seqalign info`` compiles, and ``bench``,
  the kernel benchmark behind ``seqalign bench``.

Entries name code as "module:attr" strings, imported when a run needs them,
so that asking the table costs nothing. The runner, ``info``, ``bench`` and
the command line ask this table; routing inside a family (which kernel,
which lane width, checkpoints, the CPU fallback) is the family's own
engines' business.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import writers
from ..errors import UsageError
from ..io.sizing import ChunkSize
from ..writers import load


@dataclass(frozen=True)
class Family:
    name: str  # one name end to end: kernels/<name>*.cu, families/<name>/, tests/test_<name>.py
    command: str  # the subcommand
    unit: str  # what one record of the family is, in the plural ("pairs")
    chunks: str | object  # "module:function" (or the function): (inputs, batch_size) -> chunks in input order
    cpu: str | type  # "module:Class" (or the class): the CPU engine
    cuda: str | None = None  # "module:Class": the engine on one GPU
    cuda_hooks: str | None = None  # "module:object": what the GPU scheduler asks of the family
    checks: str | None = None  # "module:function": {kernel file: template variants} for ``seqalign info``
    bench: str | None = None  # "module:function": the kernel benchmark of ``seqalign bench``
    #: its GPU engine scores substitution matrices (its hooks route what it cannot): True, False, or "asked":
    #: only when asked for (``--backend cuda``), as ``gpu_when_asked`` says for a whole engine
    gpu_matrices: bool | str = False
    #: its GPU engine runs only when asked for (``--backend cuda``): an engine the GPU suite has not yet held to
    #: the CPU engine on a GPU; ``auto`` picks the CPU and says so
    gpu_when_asked: bool = False
    #: the records of a chunk when ``--batch-size`` is not given: a count, or a ``ChunkSize`` rule
    chunk_size: int | ChunkSize = 16384
    #: what ``--batch-size`` counts where it is not the family's records, as its help says it
    chunk_unit: str = ""

    def new_on_gpu(self, align) -> str | None:
        """What of a run's GPU work is new (``gpu_when_asked``, ``gpu_matrices="asked"``), said as "... is new",
        or None: ``auto`` then picks the CPU and says so."""
        if self.gpu_when_asked:
            return f"{self.command}'s GPU engine is new"
        if self.gpu_matrices == "asked" and align is not None and align.scoring.matrix is not None:
            return f"{self.command}'s GPU kernels of substitution matrices are new"
        return None

    load = staticmethod(load)

    @property
    def formats(self) -> tuple[str, ...]:
        return writers.formats(self.name)

    def read(self, inputs, batch_size: int | None, shard: tuple[int, int] | None = None):
        """The chunks of a run, of ``batch_size`` records (None: the family's ``chunk_size``); with ``shard``
        (K, N), of its K-th part only: ``chunks`` is then called with ``shard`` as a third argument (a family
        without parts need not take one)."""
        if batch_size is None:
            batch_size = self.chunk_size
        if shard is None:
            return load(self.chunks)(inputs, batch_size)
        return load(self.chunks)(inputs, batch_size, shard)

    def cpu_engine(self, threads: int):
        return load(self.cpu)(threads)

    def cuda_engine(self, device: int):
        return load(self.cuda)(device)


FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    FAMILIES[family.name] = family
    return family


def get(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise UsageError(f"unknown family {name!r}; known: {', '.join(FAMILIES)}") from None


register(Family(
    name="pairwise",
    command="pair",
    unit="pairs",
    chunks="seqalign_cli.families.pairwise.chunks:pair_chunks",
    cpu="seqalign_cli.families.pairwise.cpu:CpuPairwise",
    cuda="seqalign_cli.families.pairwise.gpu:CudaPairwise",
    cuda_hooks="seqalign_cli.families.pairwise.gpu:HOOKS",
    checks="seqalign_cli.families.pairwise.gpu:compile_checks",
    bench="seqalign_cli.families.pairwise.bench:run",
    gpu_matrices=True,
    # short pairs in larger chunks: each costs fixed host work (benchmarks/decisions/pair_chunk_size.md)
    chunk_size=ChunkSize(65536, least=16384, letters=32 << 20),
))

register(Family(
    name="triplet",
    command="triplet",
    unit="triplets",
    chunks="seqalign_cli.families.triplet.chunks:triplet_chunks",
    cpu="seqalign_cli.families.triplet.cpu:CpuTriplet",
    cuda="seqalign_cli.families.triplet.gpu:CudaTriplet",
    cuda_hooks="seqalign_cli.families.triplet.gpu:HOOKS",
    checks="seqalign_cli.families.triplet.gpu:compile_checks",
    bench="seqalign_cli.families.triplet.bench:bench_run",
))

register(Family(
    name="graph",
    command="graph",
    unit="reads",
    chunks="seqalign_cli.families.graph.chunks:graph_chunks",
    cpu="seqalign_cli.families.graph.cpu:CpuGraph",
    cuda="seqalign_cli.families.graph.gpu:CudaGraph",
    cuda_hooks="seqalign_cli.families.graph.gpu:HOOKS",
    checks="seqalign_cli.families.graph.gpu:compile_checks",
    bench="seqalign_cli.families.graph.bench:bench_run",
))

register(Family(
    name="search",
    command="search",
    unit="queries",
    chunks="seqalign_cli.families.search.chunks:search_chunks",
    cpu="seqalign_cli.families.search.cpu:CpuSearch",
    cuda="seqalign_cli.families.search.gpu:CudaSearch",
    cuda_hooks="seqalign_cli.families.search.gpu:HOOKS",
    checks="seqalign_cli.families.search.gpu:compile_checks",
    gpu_matrices=True,
    # scores of a chunk: the queries of 32 MB of them side by side on a GPU (benchmarks/decisions/search_chunks.md)
    chunk_size=1 << 23,
    chunk_unit="query x record scores a chunk, whole queries (at least one)",
))
