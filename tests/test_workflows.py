"""Workflow engines: the Snakemake scatter/gather example, the CWL tools and the Nextflow module.

Snakemake and cwltool come with the test extra and run for real (cwltool
without a container; Snakemake where it installs, Python 3.11 and newer); Nextflow cannot be installed from PyPI, so the
module's script block is run as Nextflow would run it: its Groovy variables
substituted, its indentation stripped, under bash. The tools find
``seqalign`` on PATH, so the running interpreter's bin folder goes first.
Every output is checked against a direct ``seqalign`` run of the same
options; for parts (``--shard K/N``) the gathered parts against the whole
run. Data: the 200 real pairs of tests/data/cli.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from seqalign_cli import __version__
from support.clidata import GQ, GT

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SNAKEFILE = EXAMPLES / "snakemake" / "Snakefile"
CWL = EXAMPLES / "cwl"
MODULE = EXAMPLES / "nextflow" / "modules" / "seqalign" / "pair"
DATA = Path(__file__).parent / "data"
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def run(cmd, cwd, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=ENV, capture_output=True, text=True,
                          timeout=timeout)


def whole_run(tmp_path: Path, *args) -> str:
    """The output of one direct, unsharded ``seqalign`` run."""
    out = tmp_path / f"whole{len(list(tmp_path.glob('whole*')))}.{args[-1]}"
    proc = run([sys.executable, "-m", "seqalign_cli", *args[:-1], "-q", "--backend", "cpu", "-o", out], tmp_path)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def without_pg(sam: str) -> list[str]:
    """SAM lines less the @PG lines (their command lines name each run's own options)."""
    return [line for line in sam.splitlines() if not line.startswith("@PG")]


def test_seqalign_is_on_the_tools_path():
    assert shutil.which("seqalign", path=ENV["PATH"]) == str(BIN / "seqalign")


# --- Snakemake --------------------------------------------------------------------------------


def snakemake(tmp_path: Path, **config) -> subprocess.CompletedProcess:
    pytest.importorskip("snakemake", reason="Snakemake 8 (the test extra) needs Python 3.11 or newer")
    settings = {"query": GQ, "target": GT, "mode": "glocal", "threads": 1, "backend": "cpu", **config}
    return run([sys.executable, "-m", "snakemake", "--cores", "2", "--snakefile", SNAKEFILE,
                "--directory", tmp_path, "--config", *(f"{k}={v}" for k, v in settings.items())], tmp_path)


@pytest.mark.parametrize("fmt, shards", [
    ("tsv", 3),
    ("sam", 2),
    pytest.param("bam", 2, marks=pytest.mark.skipif(shutil.which("samtools") is None, reason="needs samtools")),
])
def test_snakemake_parts_gather_into_the_whole_run(tmp_path, fmt, shards):
    proc = snakemake(tmp_path, format=fmt, shards=shards)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    gathered = tmp_path / "results" / f"aligned.{fmt}"
    whole = whole_run(tmp_path, "pair", "--mode", "glocal", GQ, GT, "sam" if fmt == "bam" else fmt)
    if fmt == "tsv":
        assert gathered.read_text() == whole
        assert len(whole.splitlines()) == 201
    elif fmt == "sam":
        text = gathered.read_text()
        assert without_pg(text) == without_pg(whole)
        assert f"--shard 1/{shards} " in text  # the header is the first part's
    else:
        import pysam

        with pysam.AlignmentFile(str(gathered), check_sq=False) as bam:
            records = [r.to_string() for r in bam]
        assert records == [line for line in whole.splitlines() if not line.startswith("@")]
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == sorted([f"align.part{k}.log" for k in range(1, shards + 1)] + ["gather.log"])
    for k in range(1, shards + 1):  # each part's stderr: its summary line
        assert f"seqalign {__version__}: " in (tmp_path / "logs" / f"align.part{k}.log").read_text()
    assert not list((tmp_path / "results" / "parts").glob("*")), "the parts are temporary"


def test_snakemake_refuses_an_unknown_format(tmp_path):
    proc = snakemake(tmp_path, format="gaf", shards=2)
    assert proc.returncode != 0
    assert "format must be one of tsv, paf, sam, bam" in proc.stdout + proc.stderr


# --- CWL --------------------------------------------------------------------------------------

TOOLS = ("pair", "triplet", "graph")


def test_cwl_tools_are_valid():
    code = ("import sys; from cwltool.main import main\n"
            "sys.exit(max(main(['--quiet', '--validate', f]) for f in sys.argv[1:]))")
    proc = run([sys.executable, "-c", code, *(CWL / f"{t}.cwl" for t in TOOLS)], CWL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("is valid CWL") == len(TOOLS)


@pytest.mark.parametrize("tool", TOOLS)
def test_cwl_job_files_name_the_tools_inputs(tool):
    """Each example job file gives inputs its tool declares, existing files and allowed symbols."""
    inputs = yaml.safe_load((CWL / f"{tool}.cwl").read_text())["inputs"]
    job = yaml.safe_load((CWL / f"{tool}.job.yml").read_text())
    required = {k for k, v in inputs.items() if isinstance(v["type"], str) and not v["type"].endswith("?")
                and "default" not in v}
    assert required <= set(job), required - set(job)
    for key, value in job.items():
        assert key in inputs, key
        kind = inputs[key]["type"]
        if isinstance(value, dict):
            assert value["class"] == "File" and (CWL / value["path"]).is_file(), value
        enums = [t for t in (kind if isinstance(kind, list) else [kind]) if isinstance(t, dict)]
        if enums:
            assert value in enums[0]["symbols"], (key, value)


def cwltool(tmp_path: Path, tool: str, job: dict, name: str) -> subprocess.Popen:
    """Start ``cwltool --no-container`` on a job written to tmp_path/NAME.yml."""
    (tmp_path / f"{name}.yml").write_text(yaml.safe_dump(job))
    cmd = [sys.executable, "-m", "cwltool", "--quiet", "--no-container", "--outdir", tmp_path / name,
           CWL / f"{tool}.cwl", tmp_path / f"{name}.yml"]
    return subprocess.Popen([str(c) for c in cmd], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def outputs(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err
    return json.loads(out)


def file_input(path: Path) -> dict:
    return {"class": "File", "path": str(path)}


def test_cwl_pair_parts_concatenate_into_the_whole_run(tmp_path):
    jobs = [cwltool(tmp_path, "pair", {"query": file_input(GQ), "target": file_input(GT), "mode": "glocal",
                                       "backend": "cpu", "shard": f"{k}/2", "output_name": f"part{k}"},
                    f"part{k}") for k in (1, 2)]
    results = [outputs(job) for job in jobs]
    parts = [Path(r["alignment"]["path"]) for r in results]
    assert [p.name for p in parts] == ["part1.tsv", "part2.tsv"]
    whole = whole_run(tmp_path, "pair", "--mode", "glocal", GQ, GT, "tsv")
    assert parts[0].read_text() + parts[1].read_text() == whole
    assert parts[0].read_text().startswith("#") and not parts[1].read_text().startswith("#")
    for r in results:
        assert f"seqalign {__version__}: 100 pairs" in Path(r["log"]["path"]).read_text()


def test_cwl_triplet_and_graph_run_their_options(tmp_path):
    tri = DATA / "triplet"
    triplet = cwltool(tmp_path, "triplet", {
        "a": file_input(tri / "sars.a.fa"), "b": file_input(tri / "sars.b.fa"), "c": file_input(tri / "sars.c.fa"),
        "mode": "semi-global", "format": "maf", "shard": "2/15", "backend": "cpu"}, "triplet")
    graph = cwltool(tmp_path, "graph", {
        "graph": file_input(DATA / "graph" / "x.gfa"), "reads": file_input(DATA / "graph" / "small_dag_reads.fa"),
        "mode": "local", "forward_only": True, "backend": "cpu"}, "graph")
    maf = Path(outputs(triplet)["alignment"]["path"])
    gaf = Path(outputs(graph)["alignment"]["path"])
    assert maf.name == "triplets.maf" and gaf.name == "reads.gaf"
    expected_maf = whole_run(tmp_path, "triplet", "--mode", "semi-global", "--shard", "2/15",
                             tri / "sars.a.fa", tri / "sars.b.fa", tri / "sars.c.fa", "maf")
    assert maf.read_text() == expected_maf and len(re.findall("^a score=", expected_maf, re.M)) == 4
    expected_gaf = whole_run(tmp_path, "graph", "--mode", "local", "--forward-only", DATA / "graph" / "x.gfa",
                             DATA / "graph" / "small_dag_reads.fa", "gaf")
    assert gaf.read_text() == expected_gaf and expected_gaf.strip()


# --- Nextflow ---------------------------------------------------------------------------------

_GROOVY_VAR = re.compile(r"(?<!\\)\$\{([^}]+)\}")


def module_block(label: str) -> tuple[str, str]:
    """The ``def`` lines and the command template of the module's ``script:`` or ``stub:`` block."""
    text = (MODULE / "main.nf").read_text()
    body = text.split(f"\n    {label}:\n", 1)[1]
    defs, rest = body.split('"""', 1)
    return defs, rest.split('"""', 1)[0]


def extension_of(defs: str, args: str) -> str:
    """The output extension the block's ``def extension`` gives for these args."""
    chosen = dict(re.findall(r"args\.contains\('--format (\w+)'\) \? '(\w+)'", defs))
    assert chosen == {"sam": "sam", "bam": "bam", "paf": "paf"} and ": 'tsv'" in defs
    return next((ext for fmt, ext in chosen.items() if f"--format {fmt}" in args), "tsv")


def command_script(template: str, values: dict) -> str:
    """The script Nextflow runs: Groovy's ${...} substituted, \\$ and \\\\ unescaped, indentation stripped."""
    assert not re.search(r"(?<!\\)\$(?!\{)", template), "use ${name} for Groovy, \\$ for the shell"
    assert set(_GROOVY_VAR.findall(template)) == set(values)
    script = _GROOVY_VAR.sub(lambda m: str(values[m.group(1)]), template)
    return textwrap.dedent(script.replace("\\$", "$").replace("\\\\", "\\"))


def run_module(task_dir: Path, label: str, args: str, prefix: str) -> Path:
    """Run the block in task_dir with the inputs staged as Nextflow stages them (links by their names)."""
    task_dir.mkdir()
    for src in (GQ, GT):
        (task_dir / src.name).symlink_to(src)
    defs, template = module_block(label)
    values = {"args": args, "prefix": prefix, "extension": extension_of(defs, args), "task.cpus": 1,
              "task.process": "SEQALIGN_PAIR", "query": GQ.name, "target_file": GT.name}
    values = {k: v for k, v in values.items() if f"${{{k}}}" in template}
    (task_dir / ".command.sh").write_text(command_script(template, values))
    proc = run(["bash", "-euo", "pipefail", ".command.sh"], task_dir)
    assert proc.returncode == 0, proc.stderr
    versions = yaml.safe_load((task_dir / "versions.yml").read_text())
    assert {k: {t: str(v) for t, v in tools.items()} for k, tools in versions.items()} == {
        "SEQALIGN_PAIR": {"seqalign": __version__}}
    return task_dir / f"{prefix}.{values['extension']}"


def test_nextflow_module_parts_concatenate_into_the_whole_run(tmp_path):
    parts = [run_module(tmp_path / f"task{k}", "script", f"--mode glocal --backend cpu --shard {k}/2",
                        f"sample.part{k}") for k in (1, 2)]
    assert [p.name for p in parts] == ["sample.part1.tsv", "sample.part2.tsv"]
    assert "".join(p.read_text() for p in parts) == whole_run(tmp_path, "pair", "--mode", "glocal", GQ, GT, "tsv")
    log = tmp_path / "task1" / "sample.part1.seqalign.log"
    for _ in range(50):  # the log is written by tee, which may end just after the script
        if f"seqalign {__version__}: 100 pairs" in log.read_text():
            break
        time.sleep(0.1)
    assert f"seqalign {__version__}: 100 pairs" in log.read_text()


def test_nextflow_module_format_and_stub(tmp_path):
    sam = run_module(tmp_path / "sam", "script", "--format sam --mode local --backend cpu", "s")
    assert sam.name == "s.sam"
    assert without_pg(sam.read_text()) == without_pg(whole_run(tmp_path, "pair", "--mode", "local", GQ, GT, "sam"))
    stub = run_module(tmp_path / "stub", "stub", "--format paf", "s")
    assert stub.name == "s.paf" and stub.read_text() == ""


def test_nextflow_module_metadata_matches_the_process():
    text = (MODULE / "main.nf").read_text()
    meta = yaml.safe_load((MODULE / "meta.yml").read_text())
    (declared,) = re.findall(r"input:\n\s*tuple (.+)\n", text)
    names = re.findall(r"(?:val|path)\((\w+)\)", declared)
    assert names == [next(iter(entry)) for entry in meta["input"][0]] == ["meta", "query", "target"]
    emits = re.findall(r"emit: (\w+)", text)
    assert emits == [next(iter(entry)) for entry in meta["output"]] == ["alignment", "log", "versions"]
    env = yaml.safe_load((MODULE / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == [f"seqalign-cli=={__version__}"]
