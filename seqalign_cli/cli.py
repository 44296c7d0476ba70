"""Command line: one subcommand per family; turns options into a RunConfig and calls the runner.

Options every family shares (scoring, output, execution) are declared once
(``scoring_options``, ``run_options``) and a subcommand hands its own
inputs and alignment settings to ``execute``.

Exit codes: 0 success, 1 bad input data, 2 bad usage, 128 + the signal number
after SIGINT, SIGTERM or SIGHUP (130, 143, 129). Errors are one line on
stderr; a closed stdout (``| head``) ends the run quietly.

Options that contradict each other are usage errors before anything is
read: two pairings, ``--format`` against the output's extension
(``writers.output_format``), and for SAM/BAM scoring whose scores can leave
32-bit integers even for pairs of one base (longer pairs are held to the
bound by the reader, ``families.pairwise.chunks``).
"""

from __future__ import annotations

import os
import shlex
import sys

import click

from . import families
from ._version import __version__
from .backends import BACKENDS
from .config import ALPHABETS, GRAPH_MODES, MODES, TRIPLET_MODES, AlignConfig, RunConfig, Scoring
from .errors import SeqalignError, UsageError
from .io.sizing import ChunkSize
from .matrices import BUILTIN as MATRICES
from .matrices import INT32_MAX
from .writers import formats, output_format

SCORE = click.IntRange(0, 2**31 - 1)
CONTEXT = dict(help_option_names=["-h", "--help"], max_content_width=100)
STRANDS = ("forward", "both")


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", "-V", prog_name="seqalign", message="%(prog)s %(version)s")
def cli():
    """seqalign: exact alignment of read pairs, triplets, reads against graphs, and database search."""


def scoring_options(gap_open: int = 4, gap_open_help: str = ""):
    """--match, --mismatch, --gap-open, --gap-extend, --n-penalty (every family scores alike; its own gap-open default)."""
    options = [
        click.option("--match", type=SCORE, default=2, show_default=True, help="Match score."),
        click.option("--mismatch", type=SCORE, default=4, show_default=True, help="Mismatch penalty."),
        click.option("--gap-open", type=SCORE, default=gap_open, show_default=True,
                     help="Gap open penalty: a gap of length k costs gap-open + k*gap-extend (0: linear gaps)."
                          + gap_open_help),
        click.option("--gap-extend", type=SCORE, default=2, show_default=True, help="Gap extension penalty per base."),
        click.option("--n-penalty", type=SCORE, default=1, show_default=True,
                     help="Penalty of any pair involving N (or another non-ACGT letter)."),
    ]

    def decorate(func):
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def alphabet_options(default: str):
    """--alphabet (``default`` unless given) and --matrix."""
    options = [
        click.option("--alphabet", type=click.Choice((*ALPHABETS, "auto")), default=default, show_default=True,
                     help="dna: IUPAC nucleotide codes; protein: amino acids, B Z X J U O and '*', scored by "
                          "--matrix (BLOSUM62 unless given) with BLAST's gap costs for it unless given (BLOSUM62: "
                          "--gap-open 11 --gap-extend 1); auto: protein where the first records of the queries "
                          "hold a letter only proteins use, said on stderr."),
        click.option("--matrix", metavar="NAME|FILE", default=None,
                     help=f"Substitution matrix instead of --match/--mismatch/--n-penalty: {', '.join(MATRICES)}, "
                          f"or a file in NCBI's format  [default: BLOSUM62 for proteins]"),
    ]

    def decorate(func):
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


#: the records of the queries ``--alphabet auto`` reads
AUTO_RECORDS = 100


def auto_alphabet(path: str, quiet: bool) -> str:
    """``--alphabet auto``: protein where one of the first ``AUTO_RECORDS`` records of ``path`` holds a letter
    only proteins use (E F I J L O P Q Z *), else dna; said on stderr unless ``quiet``. The file is read
    again by the run, so it must be one that can be (not stdin, not a pipe)."""
    if path == "-" or not os.path.isfile(path):
        raise UsageError(f"--alphabet auto reads the start of the queries before the run: give them as a regular "
                         f"file, or --alphabet dna or protein (got {'stdin' if path == '-' else repr(path)})")
    from .io import alphabet as letters
    from .io.fastx import FastxReader

    letters.use(letters.PROTEIN)  # a superset of the nucleotide codes: the peek refuses nothing either takes
    try:
        for _, record in zip(range(AUTO_RECORDS), FastxReader(path)):
            found = next((c for c in record.seq.decode("ascii").upper() if c in letters.PROTEIN_ONLY), None)
            if found is not None:
                if not quiet:
                    click.echo(f"seqalign: alphabet auto: picked protein ({path}: record {record.name!r} holds "
                               f"{found!r}, a letter only proteins use)", err=True)
                return letters.PROTEIN
    finally:
        letters.use(letters.DNA)
    if not quiet:
        click.echo(f"seqalign: alphabet auto: picked dna (no letter only proteins use in the first records of "
                   f"{path})", err=True)
    return letters.DNA


def matrix_scoring(ctx, alphabet: str, matrix: str | None, scoring: Scoring) -> Scoring:
    """``scoring`` with ``--matrix`` and BLAST's gap costs for proteins (``matrices.with_matrix``), the options
    the user gave read from the command line."""
    from . import matrices

    given = {n for n in ("match", "mismatch", "n_penalty", "gap_open", "gap_extend")
             if ctx.get_parameter_source(n) not in (click.core.ParameterSource.DEFAULT, None)}
    return matrices.with_matrix(scoring, alphabet, matrix, given)


def _chunk_unit(family) -> str:
    """What ``--batch-size`` counts, as its help says it."""
    if family.chunk_unit:
        return family.chunk_unit[0].upper() + family.chunk_unit[1:]
    return f"{family.unit.capitalize()} read, aligned and written per chunk"


def run_options(family_name: str):
    """Output and execution options, the same for every family (formats from the writers' registry)."""
    fmts = formats(family_name)

    def decorate(func):
        options = [
            click.option("-o", "--output", default="-", show_default=True,
                         help="Output file ('-' for stdout; .gz compresses)."),
            click.option("--format", "out_format", type=click.Choice(fmts), default=None,
                         help="Output format  [default: from the output extension, else tsv]"),
            click.option("--backend", type=click.Choice(BACKENDS), default="auto", show_default=True,
                         help="Alignment engine."),
            click.option("--device", type=SCORE, default=0, show_default=True, help="GPU to use with the cuda backend."),
            click.option("--devices", metavar="LIST", default=None,
                         help="Several GPUs for the cuda backend: '0,1,...' or 'all' (work shared by cell count)."),
            click.option("-t", "--threads", type=click.IntRange(min=1), default=1, show_default=True,
                         help="CPU threads."),
            click.option("--compress-level", type=click.IntRange(0, 9), default=1, show_default=True,
                         help="BGZF level of BAM and .gz output, as samtools' -l (0 stores; 1-3 fast, 9 smallest)."),
            click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
                         help="Worker processes that read, align and write chunks side by side (TSV, PAF, MAF; "
                              "zip and interleaved inputs); 1: none. The -t threads are shared among them."),
            click.option("--batch-size", type=click.IntRange(min=1), default=None,
                         help=f"{_chunk_unit(families.get(family_name))} "
                              f"[default: {ChunkSize.of(families.get(family_name).chunk_size).describe()}]."),
            click.option("--shard", metavar="K/N", default=None,
                         help="Align only the K-th of N parts of the input (whole records by position, K from 1); "
                              "the N outputs concatenate in input order."),
            click.option("--stats", "stats_file", metavar="FILE", default=None,
                         help="Write the run summary as JSON (MultiQC custom content)."),
            click.option("-q", "--quiet", is_flag=True, help="No progress and no summary on stderr."),
        ]
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def _input_files(inputs) -> tuple[str, ...]:
    from .runner import input_files

    return input_files(inputs)


def execute(ctx, family: str, inputs, align: AlignConfig, opts: dict, cigar_m: bool = False,
            read_group: str | None = None):
    """Run one family's job from its parsed options: the run configuration, the runner, the summary."""
    device = _parse_devices(opts["devices"]) if opts["devices"] is not None else opts["device"]
    quiet = opts["quiet"]
    cfg = RunConfig(
        inputs=inputs, family=family, output=opts["output"],
        out_format=output_format(family, opts["output"], opts["out_format"], _input_files(inputs)), cigar_m=cigar_m,
        align=align,
        backend=opts["backend"], device=device, threads=opts["threads"], batch_size=opts["batch_size"],
        shard=_parse_shard(opts["shard"]) if opts["shard"] is not None else None, stats=opts["stats_file"],
        read_group=read_group, quiet=quiet, progress=not quiet and sys.stderr.isatty(), workers=opts["workers"],
        compress_level=opts["compress_level"],
        command_line=" ".join(["seqalign"] + [shlex.quote(a) for a in (ctx.obj or {}).get("argv", sys.argv[1:])]))
    from .runner import run

    try:
        summary = run(cfg, log=(lambda m: None) if quiet else (lambda m: click.echo(f"seqalign: {m}", err=True)))
    except BrokenPipeError:
        # the reader of stdout left (| head): end quietly
        _quiet_stdout()
        ctx.exit(0)
    except KeyboardInterrupt as exc:  # SIGINT, SIGTERM, SIGHUP: the runner removed the temporary output
        if not (ctx.obj or {}).get("command_line"):
            raise  # in process (tests, embedding): the caller decides
        _end_interrupted(exc)
    if not quiet:
        click.echo(f"seqalign {__version__}: {summary.line()}", err=True)


@cli.command(context_settings=CONTEXT)
@click.pass_context
@click.argument("query", type=str)
@click.argument("target", type=str, required=False)
@click.option("--cross", is_flag=True, help="Align every query against every target.")
@click.option("--interleaved", is_flag=True, help="QUERY alone holds pairs as consecutive records.")
@click.option("--pairs", "pairs_file", type=str, metavar="FILE",
              help="TSV of query_name<TAB>target_name[:region] (samtools regions: NAME, NAME:BEG, NAME:BEG-, "
                   "NAME:-END, NAME:BEG-END, 1-based inclusive); targets are cut from TARGET (or QUERY) "
                   "through its FASTA index.")
@scoring_options()
@alphabet_options("dna")
@click.option("--mode", type=click.Choice(MODES), default="global", show_default=True,
              help="global; semi-global (all end gaps free); glocal (query end to end, target ends free); "
                   "local.")
@click.option("--score-only", is_flag=True, help="Skip the traceback (CIGAR '*'; TSV output only).")
@click.option("--cigar-m", is_flag=True, help="Write M instead of =/X in CIGARs.")
@click.option("--max-matrix-mb", type=click.IntRange(min=1), default=256, show_default=True,
              help="Traceback memory per group of pairs; larger pairs use the checkpointed "
                   "linear-memory traceback.")
@click.option("--strand", type=click.Choice(STRANDS), default="forward", show_default=True,
              help="forward: the query as given; both: its reverse complement too, the better kept.")
@click.option("-R", "--read-group", metavar="LINE", default=None,
              help="SAM/BAM read group header line, like '@RG\\tID:x\\tSM:y' (every record gets RG:Z:x).")
@run_options("pairwise")
def pair(ctx, query, target, cross, interleaved, pairs_file, match, mismatch, gap_open, gap_extend, n_penalty,
         alphabet, matrix, mode, score_only, cigar_m, max_matrix_mb, strand, read_group, **opts):
    """Align read pairs: QUERY (reads) against TARGET (references).

    QUERY and TARGET are FASTA or FASTQ, plain or gzip; '-' reads stdin. By
    default the i-th query is aligned with the i-th target.
    """
    from .families.pairwise.inputs import PairInputs

    chosen = [name for name, on in (("--cross", cross), ("--interleaved", interleaved),
                                    ("--pairs", pairs_file is not None)) if on]
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(chosen)} cannot be combined: they are different pairings (choose one)")
    pairing = "pairs" if pairs_file is not None else "cross" if cross else "interleaved" if interleaved else "zip"
    if pairing == "interleaved" and target is not None:
        raise UsageError("--interleaved takes QUERY alone (no TARGET)")
    if pairing in ("zip", "cross") and target is None:
        raise UsageError("TARGET is required (or use --interleaved or --pairs)")
    if query == "-" and target == "-" or (pairs_file == "-" and "-" in (query, target)):
        raise UsageError("only one input can be read from stdin ('-')")
    if alphabet == "auto":
        alphabet = auto_alphabet(query, opts["quiet"])
    scoring = matrix_scoring(ctx, alphabet, matrix, Scoring(match, mismatch, gap_open, gap_extend, n_penalty))
    align = AlignConfig(scoring=scoring, mode=mode, traceback=not score_only,
                        matrix_budget=max_matrix_mb * 1024 * 1024)
    sam = output_format("pairwise", opts["output"], opts["out_format"], (query, target, pairs_file)) in ("sam", "bam")
    if alphabet == "protein" and sam:
        raise UsageError("SAM/BAM hold nucleotide reads here: write proteins as TSV, PAF or BLAST tabular "
                         "(--format blast6)")
    if alphabet == "protein" and strand == "both":
        raise UsageError("--strand both reverse-complements the query: proteins have no other strand")
    if sam and scoring.score_bound(1, 1) > INT32_MAX:
        raise UsageError(f"this scoring (--match {match} --mismatch {mismatch} --gap-open {gap_open} --gap-extend "
                         f"{gap_extend} --n-penalty {n_penalty}) can score beyond the 32-bit integers SAM/BAM "
                         f"store (AS:i, at most {INT32_MAX:,}) even for pairs of one base; use smaller values, "
                         f"or write TSV or PAF")
    if read_group is not None:  # checked whatever the format (TSV and PAF leave it out: formats_readgroup.py)
        from .families.pairwise.formats_readgroup import parse_read_group

        read_group = parse_read_group(read_group)
    inputs = PairInputs(query, target, pairing, pairs_file, sam_scoring=scoring if sam else None, strand=strand)
    execute(ctx, "pairwise", inputs, align, opts, cigar_m, read_group)


@cli.command(context_settings=CONTEXT)
@click.pass_context
@click.argument("a", type=str)
@click.argument("b", type=str, required=False)
@click.argument("c", type=str, required=False)
@click.option("--interleaved", is_flag=True, help="A alone holds the triplets as records 3t, 3t+1, 3t+2.")
@scoring_options(gap_open=0, gap_open_help=" Triplets: each pair of sequences pays its gaps (quasi-natural "
                                            "costs, README).")
@click.option("--mode", type=click.Choice(TRIPLET_MODES), default="global", show_default=True,
              help="global; semi-global (start and end faces free); local.")
@click.option("--score-only", is_flag=True, help="Skip the traceback (columns '*'; TSV output only).")
@click.option("--max-matrix-mb", type=click.IntRange(min=1), default=256, show_default=True,
              help="Traceback memory per triplet; larger triplets are traced back in parts (checkpoints on "
                   "the CPU, windows of slices from checkpoints on the GPU).")
@run_options("triplet")
def triplet(ctx, a, b, c, interleaved, match, mismatch, gap_open, gap_extend, n_penalty, mode, score_only,
            max_matrix_mb, **opts):
    """Align sequence triplets exactly (3-way, sum-of-pairs): A, B and C.

    The i-th records of A, B and C form triplet i (FASTA or FASTQ, plain or
    gzip; '-' reads stdin for one of them). Output: TSV or MAF.
    """
    from .families.triplet.inputs import TripletInputs

    if interleaved:
        if b is not None:
            raise UsageError("--interleaved takes A alone (no B, C)")
        paths = (a,)
    else:
        if b is None or c is None:
            raise UsageError("B and C are required (or use --interleaved)")
        paths = (a, b, c)
    if list(paths).count("-") > 1:
        raise UsageError("only one input can be read from stdin ('-')")
    align = AlignConfig(scoring=Scoring(match, mismatch, gap_open, gap_extend, n_penalty), mode=mode,
                        traceback=not score_only, matrix_budget=max_matrix_mb * 1024 * 1024)
    execute(ctx, "triplet", TripletInputs(paths, interleaved), align, opts)


@cli.command(context_settings=CONTEXT)
@click.pass_context
@click.argument("graph_file", metavar="GRAPH", type=str)
@click.argument("reads", type=str)
@scoring_options()
@click.option("--mode", type=click.Choice(GRAPH_MODES), default="glocal", show_default=True,
              help="global (source to sink); glocal (the read end to end, anywhere in the graph); local.")
@click.option("--forward-only", is_flag=True, help="Align to walks of forward ('>') segments only.")
@click.option("--score-only", is_flag=True, help="Skip the traceback (no path, no CIGAR; TSV output only).")
@click.option("--max-matrix-mb", type=click.IntRange(min=1), default=256, show_default=True,
              help="Traceback memory per read; beyond it the walk recomputes checkpointed blocks of rows.")
@run_options("graph")
def graph(ctx, graph_file, reads, match, mismatch, gap_open, gap_extend, n_penalty, mode, forward_only,
          score_only, max_matrix_mb, **opts):
    """Align reads to a graph (GFA): every read against every walk of its DAG.

    GRAPH is GFA1 (plain or gzip): S lines with sequences, L lines with
    overlap 0M or '*'; each segment is aligned in both orientations unless
    --forward-only. READS are FASTA or FASTQ, plain or gzip; '-' reads stdin
    for one of the two. Output: GAF or TSV, one record per read.
    """
    from .families.graph.inputs import GraphInputs

    if graph_file == "-" and reads == "-":
        raise UsageError("only one input can be read from stdin ('-')")
    align = AlignConfig(scoring=Scoring(match, mismatch, gap_open, gap_extend, n_penalty), mode=mode,
                        traceback=not score_only, matrix_budget=max_matrix_mb * 1024 * 1024)
    execute(ctx, "graph", GraphInputs(graph_file, reads, forward_only), align, opts)


@cli.command(context_settings=CONTEXT)
@click.pass_context
@click.argument("queries", type=str)
@click.argument("database", type=str)
@scoring_options()
@alphabet_options("protein")
@click.option("--mode", type=click.Choice(MODES), default="local", show_default=True,
              help="local (Smith-Waterman); global; semi-global; glocal (the query end to end).")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="Hits kept for each query, best score first (ties in database order).")
@click.option("--min-score", type=int, default=None, help="Keep hits scoring at least this.")
@click.option("--evalue", "max_evalue", type=click.FloatRange(min=0), default=None,
              help="Keep hits of at most this E-value (local mode, published statistics only).")
@click.option("--max-matrix-mb", type=click.IntRange(min=1), default=256, show_default=True,
              help="Traceback memory per group of hits; larger ones use the checkpointed traceback.")
@run_options("search")
def search(ctx, queries, database, match, mismatch, gap_open, gap_extend, n_penalty, alphabet, matrix, mode, top,
           min_score, max_evalue, max_matrix_mb, **opts):
    """Search QUERIES against every record of DATABASE: each query's best hits (--top), with alignments.

    Both are FASTA or FASTQ, plain or gzip ('-' reads stdin for one of them).
    Proteins by default (BLOSUM62, gap costs 11 + k*1, as BLAST). Output:
    BLAST tabular (default) or TSV; queries in input order.
    """
    from .families.search.inputs import SearchInputs
    from .matrices import statistics

    if alphabet == "auto":
        alphabet = auto_alphabet(queries, opts["quiet"])
    scoring = matrix_scoring(ctx, alphabet, matrix, Scoring(match, mismatch, gap_open, gap_extend, n_penalty))
    if max_evalue is not None and statistics.params(scoring, mode) is None:
        raise UsageError(f"--evalue: {statistics.why_none(scoring, mode).split(':')[0]}; cut with --min-score "
                         f"instead")
    align = AlignConfig(scoring=scoring, mode=mode, traceback=True, matrix_budget=max_matrix_mb * 1024 * 1024)
    execute(ctx, "search", SearchInputs(queries, database, top, min_score, max_evalue), align, opts)


@cli.command(context_settings=CONTEXT)
def info():
    """Print the backends, GPUs, CuPy/CUDA versions and which kernels compile."""
    from .info import report

    for line in report():
        click.echo(line)


@cli.command("compile", context_settings=CONTEXT)
@click.option("-q", "--quiet", is_flag=True, help="Say nothing unless a job fails.")
@click.option("--wide", is_flag=True,
              help="Also the engines for scores past 32 bits (large scoring values, graphs of tens of "
                   "megabases): about 60 % longer.")
def compile_(quiet, wide):
    """Compile ahead of the first run: the CPU engine, and the GPU kernels where a GPU is usable.

    Runs small jobs of every subcommand and format so that what they compile is
    cached (numba's cache for the CPU engine, CuPy's for the kernels). For
    container images and shared installs; a normal install already does it
    for the CPU engine while the wheel is built. Scores past 32 bits take
    engines of their own, compiled with --wide, else on the first run that
    needs them (which says so).
    """
    from .compile_jobs import main as precompile

    flags = (["--quiet"] if quiet else []) + (["--wide"] if wide else [])
    code = precompile(flags, main)  # the jobs run through this command line
    code = precompile(flags + ["--backend=cuda"], main) or code  # says why not where no GPU is usable
    if code:
        raise SeqalignError("some compile jobs failed (above)")


@cli.command(context_settings=CONTEXT)
@click.option("--lengths", default="64,150,512,2048,8192", show_default=True, help="Pair lengths to time.")
@click.option("--reps", type=click.IntRange(min=1), default=5, show_default=True, help="Timed runs (median).")
@click.option("--family", type=click.Choice([f.command for f in families.FAMILIES.values() if f.bench]),
              default="pair", show_default=True, help="Which family's kernels to time.")
def bench(lengths, reps, family):
    """Time the GPU kernels on this machine's GPU and print GCUPS by length."""
    from .backends import gpu_status

    ok, why = gpu_status()
    if not ok:
        raise UsageError(f"seqalign bench needs a GPU: {why}")
    fam = next(f for f in families.FAMILIES.values() if f.command == family)
    fam.load(fam.bench)([int(x) for x in lengths.split(",")], ["global", "local"], reps=reps, target_cells=2e10,
                        out=click.echo)


def _parse_devices(text: str):
    if text.strip() == "all":
        return "all"
    try:
        devices = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        devices = ()
    if not devices or min(devices) < 0 or len(set(devices)) != len(devices):
        raise UsageError(f"--devices expects 'all' or distinct GPU numbers like 0,1 (got {text!r})")
    return devices


def _parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as (K, N)."""
    k, sep, n = text.partition("/")
    try:
        shard = (int(k), int(n)) if sep else None
    except ValueError:
        shard = None
    if shard is None or not 1 <= shard[0] <= shard[1]:
        raise UsageError(f"--shard expects K/N with 1 <= K <= N, like 2/8 (got {text!r})")
    return shard


def _quiet_stdout():
    """After a broken pipe: point stdout at /dev/null so the exit flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _end_interrupted(exc: KeyboardInterrupt):
    """One line on stderr, then the process ends at once with 128 + the signal number (130, 143, 129).

    Threads still inside a compiled call cannot be stopped: they end with the
    process. Flushing waits a second at most (a stdout pipe nobody reads).
    """
    import signal
    import threading

    signum = getattr(exc, "signum", signal.SIGINT)
    flushed = threading.Event()

    def finish():
        try:
            click.echo(f"seqalign: interrupted by {signal.Signals(signum).name}", err=True)
        except (OSError, ValueError):
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        flushed.set()

    threading.Thread(target=finish, daemon=True).start()
    flushed.wait(1.0)
    os._exit(128 + signum)


def _exit_now(code: int):
    """End the process once its output is flushed, skipping interpreter teardown.

    The run has closed and renamed its output file; what is left at exit is
    freeing the GPU context, memory pools and compiled functions, which
    costs a noticeable share of a short run. Only for real command lines:
    a caller that passes ``argv`` (tests, embedding) gets SystemExit.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv=None):
    """Console entry point with the project's exit codes."""
    command_line = argv is None
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=args, prog_name="seqalign", standalone_mode=False,
                 obj={"argv": args, "command_line": command_line})
    except click.exceptions.Abort:
        click.echo("seqalign: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except SeqalignError as exc:
        click.echo(f"seqalign: error: {exc.format()}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except KeyboardInterrupt:
        click.echo("seqalign: interrupted", err=True)
        sys.exit(130)
    except MemoryError:
        click.echo("seqalign: error: out of memory (try a smaller --batch-size or --max-matrix-mb)", err=True)
        sys.exit(1)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"seqalign: error: {where}{exc.strerror or exc}", err=True)
        sys.exit(1)
    if command_line:
        _exit_now(0)
    sys.exit(0)
