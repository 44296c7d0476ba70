"""samtools checks shared by the writer tests: its binary where installed, else pysam's built-in one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pysam

SAMTOOLS = shutil.which("samtools")


def sam_records(path):
    with pysam.AlignmentFile(str(path), check_sq=False) as fh:
        return fh.header.to_dict(), list(fh.fetch(until_eof=True))


def samtools_run(*args) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of samtools: its binary where installed, else pysam's (in this process)."""
    if SAMTOOLS:
        proc = subprocess.run([SAMTOOLS, *map(str, args)], capture_output=True, timeout=120)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    tool = getattr(pysam, args[0])
    try:
        out = tool(*map(str, args[1:]))
    except pysam.utils.SamtoolsError as exc:
        return 1, "", str(exc)
    err = tool.get_messages() or ""
    err = "\n".join(err) if isinstance(err, list) else err.decode() if isinstance(err, bytes) else err
    return 0, out if isinstance(out, str) else "".join(out), err


def samtools(*args) -> str:
    """The output of a samtools command that must succeed."""
    rc, out, err = samtools_run(*args)
    assert rc == 0, err
    return out


def check_with_samtools(path: Path, folder: Path):
    """quickcheck (-u without @SQ), view, flagstat, sort and index accept the file."""
    header, recs = sam_records(path)
    samtools("quickcheck", *([] if header.get("SQ") else ["-u"]), path)
    assert len(samtools("view", path).splitlines()) == len(recs)
    assert samtools("flagstat", path).splitlines()[0].startswith(f"{len(recs)} + 0 ")
    done = folder / (path.name + ".sorted.bam")
    samtools("sort", "-o", done, path)
    samtools("index", done)
    assert Path(str(done) + ".bai").stat().st_size > 0
