"""The page of current figures (benchmarks/RESULTS.md) and the journal behind it.

RESULTS.md is written by benchmarks/results_page.py from the logs; these tests run the script and hold the
committed page to its output, so the two cannot drift, and check that every log the page and the journal
cite is there. The script's log reader is checked on a small log written here.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
SCRIPT = BENCH / "results_page.py"


@pytest.fixture(scope="module")
def rp():
    spec = importlib.util.spec_from_file_location("results_page", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while they are made
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def test_committed_page_is_the_scripts_output():
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    committed = (BENCH / "RESULTS.md").read_text()
    assert run.stdout == committed, "benchmarks/RESULTS.md differs: python benchmarks/results_page.py --write"
    assert len(committed.splitlines()) <= 400


def test_every_log_the_page_cites_exists(rp):
    page = (BENCH / "RESULTS.md").read_text()
    cited = rp.cited_logs(page)
    assert len(cited) >= 20
    assert [name for name in cited if not (BENCH / "logs" / name).is_file()] == []
    assert {src.log for src in rp.SOURCES.values()} <= set(cited)
    # every figure's command, tree and date is said under its table
    for src in rp.SOURCES.values():
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", src.date) and src.tree and src.command
    for link in re.findall(r"\]\(((?:journal|decisions|logs)/[^)]*)\)", page):
        assert (BENCH / link).exists(), link


def test_check_fails_where_the_page_was_edited(rp, tmp_path, monkeypatch):
    page = tmp_path / "RESULTS.md"
    monkeypatch.setattr(rp, "PAGE", page)
    assert rp.main(["--write"]) == 0
    assert rp.main(["--check"]) == 0
    page.write_text(page.read_text().replace("| global |", "| global, edited |", 1))
    assert rp.main(["--check"]) == 1


def test_the_reader_takes_each_block_up_to_its_end(rp, tmp_path, monkeypatch):
    (tmp_path / "x.txt").write_text(
        "# header\n"
        "== old\n"
        "64\tglobal\t1.00\n"
        "== new round 1\n"
        "# NVIDIA, a header before the rows\n"
        "64\tglobal\t2.00\n"
        "128\tglobal\t2.50\n"
        "== new round 2\n"
        "64\tglobal\t2.10\n"
        "note: the rows below are another table\n"
        "64\tglobal\t9.99\n")
    monkeypatch.setattr(rp, "LOGS", tmp_path)
    pattern = r"^(?P<length>\d+)\tglobal\t(?P<v>[\d.]+)$"
    src = rp.Source("x.txt", pattern, "cmd", "abc1234", "2026-01-01",
                    (rp.Block(("== new round 1",), tag={"round": "1"}),
                     rp.Block(("== new round 1", "== new round 2"), "note:", {"round": "2"})))
    rows = rp.read(src)
    assert [(r["length"], r["v"], r["round"]) for r in rows] == [
        ("64", "2.00", "1"), ("128", "2.50", "1"), ("64", "2.10", "2")]
    # the whole log without blocks; a marker that is not there is an error, as is a block without a row
    assert [r["v"] for r in rp.read(rp.Source("x.txt", pattern, "cmd", "t", "d"))] == [
        "1.00", "2.00", "2.50", "2.10", "9.99"]
    with pytest.raises(ValueError, match="no line holds"):
        rp.read(rp.Source("x.txt", pattern, "cmd", "t", "d", (rp.Block(("== round 3",)),)))
    with pytest.raises(ValueError, match="no line of the pattern"):
        rp.read(rp.Source("x.txt", r"^256\t", "cmd", "t", "d"))


def test_a_table_takes_the_newest_source_that_holds_a_figure(rp, tmp_path, monkeypatch):
    (tmp_path / "new.txt").write_text("64\tglobal\t1.50\n64\tglobal\t1.60\n")
    (tmp_path / "old.txt").write_text("64\tglobal\t1.00\n128\tglobal\t0.90\n")
    monkeypatch.setattr(rp, "LOGS", tmp_path)
    pattern = r"^(?P<length>\d+)\t(?P<mode>global)\t(?P<v>[\d.]+)$"
    data = rp.Data({"new": rp.Source("new.txt", pattern, "new cmd", "bbb", "2026-01-02"),
                    "old": rp.Source("old.txt", pattern, "old cmd", "as of aaa", "2026-01-01")})
    legend = rp.Legend(data)
    cells = [legend.cell(["new", "old"], "v", length=n, mode="global") for n in (64, 128, 256)]
    assert cells == ["1.50-1.60 (a)", "0.90 (b)", "-"]
    text = legend.text()
    assert "(a) 2026-01-02, tree bbb: `new cmd`; log [`logs/new.txt`](logs/new.txt)" in text
    assert "(b) 2026-01-01, as of aaa: `old cmd`" in text


def test_the_journal_index_lists_every_file_and_section_and_its_logs_resolve():
    journal = BENCH / "journal"
    index = (journal / "README.md").read_text()
    files = sorted(p for p in journal.glob("*.md") if p.name != "README.md")
    assert files, "no journal files"
    listed = re.findall(r"^## \[([\d-]+\.md)\]", index, re.M)
    assert listed == [p.name for p in files]
    for path in files:
        text = path.read_text()
        titles = re.findall(r"^## (.+)$", text, re.M)
        block = index.split(f"## [{path.name}]", 1)[1].split("\n## ", 1)[0]
        assert re.findall(r"^- (.+)$", block, re.M) == titles, path.name
        for ref in re.findall(r"`(\.\./logs/[^`]*)`", text):
            assert list(journal.glob(ref)), f"{path.name}: {ref}"
        assert not re.search(r"(?<![./])`logs/", text), f"{path.name}: a log path not relative to journal/"
