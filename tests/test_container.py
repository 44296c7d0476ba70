"""The Dockerfile's recipe, run for real in a Debian root made by debootstrap (slow: minutes).

No image registry and no Docker daemon are needed: the test reads the Dockerfile's own
instructions and replays them in a chroot, the way ``docker build`` would run them, then runs
the image's entry point as ``docker run`` would. What it replays:

* ``FROM``: the one step left unchecked. The image's base, ``nvidia/cuda:...-ubuntu24.04``, is
  Ubuntu 24.04 (noble), whose packages were taken from Debian's trixie cycle; the root here is
  Debian 13 (trixie), ``debootstrap --variant=minbase``, from the Debian mirror this machine's
  apt uses (its sources are read at run time; debootstrap's default where none is found). The
  CUDA runtime, the base image's own environment and Ubuntu's builds of the packages are not
  checked; a base of another Ubuntu release fails here until ``DEBIAN_FOR_UBUNTU`` names the
  Debian release it comes from.
* ``RUN`` (shell form through ``/bin/sh -c``, or exec form), ``ENV`` (with ``$VAR`` and
  ``${VAR}`` expanded from the values before the instruction), ``USER`` (the uid, gid and home of
  the root's /etc/passwd; a bare uid missing there runs with gid 0 and HOME=/), ``WORKDIR``,
  ``COPY`` of the checkout as build context with ``.dockerignore`` applied (owned by root), and
  ``ENTRYPOINT``/``CMD``. Any other instruction fails the test, so that the Dockerfile cannot
  grow a step this replay silently skips. RUN steps start from Docker's default PATH, umask
  0022, in a chroot with /proc and /dev/shm mounted; the processes a step leaves are killed, as
  a container's are, and everything is unmounted afterwards, failure or not.
* The network settings of this machine that a build behind a proxy would be given as build
  arguments pass to the RUN steps: the proxy variables and pip's CA bundle (``PIP_CERT``, the
  file copied into the root for the build and removed before the runs). pip installs from PyPI.

Then, as the image's user, with the install (the virtual environment and the copied sources)
checked to be unwritable by that user: ``seqalign info``, and small ``pair`` (BAM, read back
by the image's samtools), ``triplet`` (MAF) and ``graph`` (GAF) jobs in a folder standing for
``docker run -v "$PWD:/data" -w /data``, plus one ``pair`` run as an arbitrary uid without a
passwd entry (``docker run --user 20000:20000``). None of them may compile: the compile step
of the recipe filled NUMBA_CACHE_DIR, and the runs must leave it as they found it.

The root after the steps before the first COPY (debootstrap, the apt packages, the user) is
kept in /var/cache/seqalign-container/KEY, KEY a hash of the Dockerfile, the Debian release,
the architecture and the mirror; a later run copies it and replays the rest (COPY onward).

That test is marked ``container`` and skipped unless selected (``python -m pytest -m container
tests/test_container.py``, as .ci/run does, after the main suite). Selected, it needs root,
debootstrap, mount and the network, and fails (not skips) without them. Two quick tests run in
every run: every instruction of the Dockerfile is one the replay knows, and the replay reads a
Dockerfile and a .dockerignore as Docker does.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from seqalign_cli import __version__
from seqalign_cli.families import FAMILIES

#: the instructions the replay knows (any other fails it)
REPLAYED = {"FROM", "RUN", "ENV", "USER", "WORKDIR", "COPY", "ENTRYPOINT", "CMD"}

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path("/var/cache/seqalign-container")
#: Ubuntu release of the base image -> the Debian release its packages were taken from
DEBIAN_FOR_UBUNTU = {"24.04": "trixie", "22.04": "bookworm", "20.04": "bullseye"}
#: the PATH a Docker build or run starts from (Linux images whose base sets none)
DOCKER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: the build arguments Docker predefines; a build behind a proxy is given them
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "NO_PROXY", "ALL_PROXY",
              "http_proxy", "https_proxy", "ftp_proxy", "no_proxy", "all_proxy")
BUILD_CA = "/tmp/.build-ca.crt"  # inside the root, for the build steps only
STEP_TIMEOUT = 1800
JOB_TIMEOUT = 600
ANY_UID = "20000:20000"


# --- the Dockerfile ---------------------------------------------------------------------------

def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, as Docker reads them: a comment line is dropped even
    inside a continuation, a trailing backslash joins the next line."""
    found, current = [], None
    for line in text.splitlines():
        if line.lstrip().startswith("#") or (current is not None and not line.strip()):
            continue
        if current is None and not line.strip():
            continue
        current = line if current is None else current + line
        if current.rstrip().endswith("\\"):
            current = current.rstrip()[:-1]
            continue
        word, _, rest = current.strip().partition(" ")
        found.append((word.upper(), rest.strip()))
        current = None
    assert current is None, "the Dockerfile ends in a continuation line"
    return found


def expand(value: str, env: dict[str, str]) -> str:
    """Docker's substitution of $VAR and ${VAR} (an unset variable is empty)."""
    if re.search(r"\$\{[^}]*[:?+-]", value):
        pytest.fail(f"Dockerfile: {value!r}: ${{VAR:-...}} forms are not replayed by {Path(__file__).name}")
    return re.sub(r"\$(?:\{(\w+)\}|(\w+))", lambda m: env.get(m.group(1) or m.group(2), ""), value)


def env_pairs(args: str, env: dict[str, str]) -> dict[str, str]:
    """An ENV instruction's assignments, expanded from the values before it."""
    words = shlex.split(args)
    if words and "=" not in words[0]:  # the legacy form: ENV KEY the value
        key, _, value = args.strip().partition(" ")
        return {key: expand(value.strip(), env)}
    assert all("=" in w for w in words), f"ENV {args}: a word without '='"
    return {k: expand(v, env) for k, v in (w.split("=", 1) for w in words)}


def command_of(args: str) -> list[str]:
    """RUN, ENTRYPOINT or CMD arguments as argv: the exec form (JSON), else /bin/sh -c."""
    if args.lstrip().startswith("["):
        argv = json.loads(args)
        assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), args
        return argv
    return ["/bin/sh", "-c", args]


def base_debian_release(image: str) -> str:
    found = re.search(r"ubuntu(\d+\.\d+)", image)
    if not found or found.group(1) not in DEBIAN_FOR_UBUNTU:
        pytest.fail(f"FROM {image}: {Path(__file__).name} knows no Debian release for this base "
                    f"(DEBIAN_FOR_UBUNTU: {DEBIAN_FOR_UBUNTU})")
    return DEBIAN_FOR_UBUNTU[found.group(1)]


# --- .dockerignore ----------------------------------------------------------------------------

def _pattern_regex(pattern: str) -> re.Pattern:
    """A .dockerignore pattern (Go's filepath.Match with '**') as a regex on a relative path."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):  # '**/' : any number of folders, none included
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i)
            assert end > i, f".dockerignore: {pattern!r}: an open '['"
            out.append("[" + pattern[i + 1:end].replace("!", "^", 1) + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def dockerignore(context: Path):
    """The context's .dockerignore as a predicate on relative paths (last matching rule wins; a
    rule matching a folder covers everything in it)."""
    rules = []
    path = context / ".dockerignore"
    for line in path.read_text().splitlines() if path.exists() else []:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        line = os.path.normpath(line[1:].strip() if keep else line).lstrip("/")
        rules.append((keep, _pattern_regex(line)))

    def ignored(rel: str) -> bool:
        parts = rel.split("/")
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        verdict = False
        for keep, regex in rules:
            if any(regex.match(p) for p in prefixes):
                verdict = not keep
        return verdict

    return ignored, any(keep for keep, _ in rules)


def copy_context(context: Path, sources: list[str], dest: Path):
    """COPY: each source (a file or a folder's contents) into dest, .dockerignore applied, owned by root."""
    ignored, has_exceptions = dockerignore(context)
    dest.mkdir(parents=True, exist_ok=True)
    for source in sources:
        top = (context / source).resolve()
        assert top == context or context in top.parents, f"COPY {source}: outside the build context"
        if top.is_file():
            target = dest / top.name if len(sources) > 1 else dest
            shutil.copy2(top, target)
            os.chown(target, 0, 0)
            continue
        for folder, dirs, files in os.walk(top):
            rel_folder = os.path.relpath(folder, context)
            rel_folder = "" if rel_folder == "." else rel_folder + "/"
            out_folder = dest / os.path.relpath(folder, top)
            if not has_exceptions:  # nothing below an ignored folder can come back
                dirs[:] = [d for d in dirs if not ignored(rel_folder + d)]
            for name in dirs:
                out = out_folder / name
                if not ignored(rel_folder + name) or has_exceptions:
                    out.mkdir(exist_ok=True)
                    shutil.copystat(Path(folder) / name, out)
                    os.chown(out, 0, 0)
            for name in files:
                if ignored(rel_folder + name):
                    continue
                src, out = Path(folder) / name, out_folder / name
                out.parent.mkdir(parents=True, exist_ok=True)
                if src.is_symlink():
                    os.symlink(os.readlink(src), out)
                else:
                    shutil.copy2(src, out)
                os.lchown(out, 0, 0)


# --- the host: mirror, mounts, processes ------------------------------------------------------

def host_debian_mirror() -> str | None:
    """The Debian archive this machine's apt uses (its first plain-suite 'deb' source), if any."""
    sources = Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))
    for path in sources:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".sources":  # deb822
            for stanza in re.split(r"\n\s*\n", text):
                fields = {}
                for line in stanza.splitlines():
                    key, sep, value = line.partition(":")
                    if sep and not line.startswith(("#", " ")):
                        fields[key.strip().lower()] = value.strip()
                if ("deb" in fields.get("types", "").split() and fields.get("enabled", "yes") != "no"
                        and any("-" not in s for s in fields.get("suites", "").split())):
                    for uri in fields.get("uris", "").split():
                        if uri.rstrip("/").endswith("/debian"):
                            return uri
        elif path.suffix == ".list" or path.name == "sources.list":
            for line in text.splitlines():
                words = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
                if len(words) >= 3 and words[0] == "deb" and "-" not in words[2] \
                        and words[1].rstrip("/").endswith("/debian"):
                    return words[1]
    return None


def mounts_under(path: Path) -> list[str]:
    out = subprocess.run(["findmnt", "--noheadings", "--raw", "-o", "TARGET"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [t for t in out if t == str(path) or t.startswith(f"{path}/")]


def kill_processes_in(root: Path):
    """What a RUN step left running in the root dies with it, as in a container."""
    for _ in range(20):
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/root") == str(root):
                    found.append(int(pid))
            except OSError:
                continue
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


@contextlib.contextmanager
def mounted(root: Path):
    """/proc and /dev/shm in the root while the block runs; unmounted after, failure or not."""
    done = []
    try:
        for fstype, target, options in (("proc", "proc", "nosuid,nodev,noexec"),
                                        ("tmpfs", "dev/shm", "nosuid,nodev,mode=1777")):
            path = root / target
            path.mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "-t", fstype, "-o", options, fstype, str(path)], check=True)
            done.append(path)
        yield
    finally:
        kill_processes_in(root)
        for path in reversed(done):
            if subprocess.run(["umount", str(path)]).returncode != 0:
                subprocess.run(["umount", "--lazy", str(path)])
        left = mounts_under(root)
        if left:
            raise RuntimeError(f"still mounted after the container steps: {left}")


def remove_tree(path: Path):
    """rm -rf of a root folder, never through a mount."""
    if not path.exists():
        return
    for target in sorted(mounts_under(path), reverse=True):
        subprocess.run(["umount", "--lazy", target])
    assert not mounts_under(path), f"cannot unmount under {path}"
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=True)


# --- replay -----------------------------------------------------------------------------------

class Replay:
    """The state of a build in a root folder: environment, user, working folder, entry point."""

    def __init__(self, root: Path, logs: Path, build_env: dict[str, str]):
        self.root, self.logs, self.build_env = root, logs, build_env
        self.env = {"PATH": DOCKER_PATH}
        self.user, self.workdir = "0", "/"
        self.entrypoint: list[str] = []
        self.cmd: list[str] = []
        self.steps = 0
        self.durations: list[tuple[str, float]] = []

    def user_of(self, spec: str) -> tuple[int, int, str]:
        """USER NAME|UID[:GROUP|GID] as (uid, gid, home), from the root's passwd and group files."""
        name, _, group = spec.partition(":")
        rows = [line.split(":") for line in (self.root / "etc/passwd").read_text().splitlines() if line]
        entry = next((r for r in rows if name in (r[0], r[2])), None)
        if entry:
            uid, gid, home = int(entry[2]), int(entry[3]), entry[5]
        else:
            assert name.isdigit(), f"USER {spec}: no such user in /etc/passwd"
            uid, gid, home = int(name), 0, "/"
        if group:
            groups = [line.split(":") for line in (self.root / "etc/group").read_text().splitlines() if line]
            found = next((g for g in groups if group in (g[0], g[2])), None)
            assert found or group.isdigit(), f"USER {spec}: no such group"
            gid = int(found[2]) if found else int(group)
        return uid, gid, home

    def run(self, argv: list[str], *, user: str | None = None, env: dict[str, str] | None = None,
            cwd: str | None = None, timeout: int = STEP_TIMEOUT, label: str = "") -> subprocess.CompletedProcess:
        uid, gid, home = self.user_of(user or self.user)
        env = {"HOME": home, **(self.env if env is None else env)}
        root, cwd = str(self.root), cwd or self.workdir

        def enter():
            os.chroot(root)
            os.chdir(cwd)
            os.setgroups([gid])
            os.setgid(gid)
            os.setuid(uid)
            os.umask(0o022)

        self.steps += 1
        log = self.logs / f"{self.steps:02d}.log"
        start = time.perf_counter()
        proc = subprocess.Popen(argv, preexec_fn=enter, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(f"{label or argv}: no end after {timeout} s\n{err.decode(errors='replace')[-3000:]}")
        finally:
            kill_processes_in(self.root)
        self.durations.append((label or shlex.join(argv), time.perf_counter() - start))
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        log.write_text(f"$ {label or shlex.join(argv)}  (uid {uid}, gid {gid}, cwd {cwd})\n{out}\n--- stderr\n{err}")
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def apply(self, word: str, args: str, *, run_steps: bool = True):
        """One instruction; with run_steps False only the bookkeeping (the root already has its effect)."""
        if word == "RUN":
            if run_steps:
                proc = self.run(command_of(args), env={**self.env, **self.build_env}, label=f"RUN {args}")
                assert proc.returncode == 0, (f"RUN {args}\nexit {proc.returncode}\n"
                                              f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
        elif word == "ENV":
            self.env.update(env_pairs(args, self.env))
        elif word == "USER":
            self.user = expand(args.strip(), self.env)
        elif word == "WORKDIR":
            self.workdir = os.path.join(self.workdir, expand(args.strip(), self.env))
            if run_steps:
                (self.root / self.workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
        elif word == "COPY":
            words = [expand(w, self.env) for w in shlex.split(args)]
            if any(w.startswith("--") for w in words) or len(words) < 2:
                pytest.fail(f"COPY {args}: only 'COPY SOURCE... DEST' is replayed by {Path(__file__).name}")
            if run_steps:
                dest = os.path.join(self.workdir, words[-1])
                copy_context(ROOT, words[:-1], self.root / dest.lstrip("/"))
        elif word == "ENTRYPOINT":
            self.entrypoint = command_of(args)
        elif word == "CMD":
            self.cmd = command_of(args)
        else:  # FROM (the base, done by debootstrap) or an instruction outside REPLAYED
            pytest.fail(f"Dockerfile: {word} is not replayed by {Path(__file__).name}: teach it the instruction")


# --- the test ---------------------------------------------------------------------------------

def _cache_files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".compiled")}


def _check_prerequisites():
    missing = [tool for tool in ("debootstrap", "mount", "umount", "findmnt") if not shutil.which(tool)]
    if os.geteuid() != 0:
        pytest.fail("the container test needs root (debootstrap, chroot, mount)")
    if missing:
        pytest.fail(f"the container test needs {', '.join(missing)} (apt-get install debootstrap)")


def _build_env(root: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in PROXY_VARS if os.environ.get(k)}
    if os.environ.get("PIP_DEFAULT_TIMEOUT"):
        env["PIP_DEFAULT_TIMEOUT"] = os.environ["PIP_DEFAULT_TIMEOUT"]
    cert = os.environ.get("PIP_CERT")
    if cert and Path(cert).is_file():
        shutil.copyfile(cert, root / BUILD_CA.lstrip("/"))
        env["PIP_CERT"] = BUILD_CA
    return env


def _base_root(instructions, head: int, release: str, mirror: str | None, timings: dict) -> Path:
    """The cached root after debootstrap and the instructions before the first COPY (built if missing)."""
    key = hashlib.sha256((ROOT / "Dockerfile").read_bytes()
                         + f"\n{release} {os.uname().machine} {mirror}".encode()).hexdigest()[:16]
    done = CACHE / key
    if (done / "root").is_dir():
        timings["base"] = "cached"
        return done / "root"
    start = time.perf_counter()
    for old in CACHE.iterdir():  # a root of another Dockerfile, or one left half-built
        if old.is_dir() and old.name != ".lock":
            remove_tree(old)
    partial = CACHE / f"{key}.partial"
    partial.mkdir()
    root = partial / "root"
    proc = subprocess.run(["debootstrap", "--variant=minbase", release, str(root), *([mirror] if mirror else [])],
                          capture_output=True, text=True, timeout=STEP_TIMEOUT)
    assert proc.returncode == 0, f"debootstrap {release}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert not mounts_under(root), "debootstrap left mounts behind"
    shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
    logs = partial / "logs"
    logs.mkdir()
    replay = Replay(root, logs, _build_env(root))
    try:
        with mounted(root):
            for word, args in instructions[1:head]:
                replay.apply(word, args)
    finally:
        (root / BUILD_CA.lstrip("/")).unlink(missing_ok=True)
    partial.rename(done)
    timings["base"] = f"{time.perf_counter() - start:.0f} s"
    return done / "root"


def _maf_blocks(text: str) -> list[list[list[str]]]:
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith("a"):
            current = []
            blocks.append(current)
        elif line.startswith("s"):
            assert current is not None, f"an 's' line outside a block: {line}"
            current.append(line.split())
    return blocks


def test_the_replay_knows_every_instruction_of_the_dockerfile():
    """Quick, in every run: a Dockerfile step the container test could not replay is caught here."""
    instructions = dockerfile_instructions((ROOT / "Dockerfile").read_text())
    words = [w for w, _ in instructions]
    assert words[0] == "FROM" and words.count("FROM") == 1, words
    assert set(words) <= REPLAYED, f"not replayed by {Path(__file__).name}: {set(words) - REPLAYED}"
    assert base_debian_release(instructions[0][1]) in DEBIAN_FOR_UBUNTU.values()
    assert "COPY" in words and words.index("RUN") < words.index("COPY"), "no cacheable step before COPY"


def test_the_replay_reads_the_dockerfile_as_docker_does(tmp_path):
    text = ("FROM debian\n# a comment\nRUN a \\\n# a comment inside\n\n  && b\n"
            "ENV X=1 Y=two\nENV X=2 Z=$X${Y}\nENV OLD form with spaces\nCMD [\"--help\"]\n")
    instructions = dockerfile_instructions(text)
    assert instructions == [("FROM", "debian"), ("RUN", "a   && b"), ("ENV", "X=1 Y=two"),
                            ("ENV", "X=2 Z=$X${Y}"), ("ENV", "OLD form with spaces"), ("CMD", '["--help"]')]
    env = {}
    for word, args in instructions[2:5]:
        env.update(env_pairs(args, env))
    assert env == {"X": "2", "Y": "two", "Z": "1two", "OLD": "form with spaces"}
    assert command_of('["seqalign"]') == ["seqalign"] and command_of("a && b") == ["/bin/sh", "-c", "a && b"]

    (tmp_path / ".dockerignore").write_text("# the context\n.git\n**/__pycache__/\n*.egg-info/\ndocs/\n!docs/keep.md\n")
    ignored, exceptions = dockerignore(tmp_path)
    assert exceptions
    for path in (".git/HEAD", "pkg/__pycache__/m.pyc", "__pycache__/m.pyc", "x.egg-info/PKG-INFO", "docs/a.md"):
        assert ignored(path), path
    for path in ("pkg/m.py", "pkg/x.egg-info", "docs/keep.md", "README.md", ".gitignore"):
        assert not ignored(path), path


# the slow test runs only where selected (-m container); skipped otherwise, as the gpu tests are without a GPU
@pytest.mark.container
@pytest.mark.skipif("'container' not in config.getoption('markexpr')",
                    reason="the container recipe takes minutes: select it with -m container")
def test_the_dockerfile_builds_and_its_image_runs_every_subcommand(tmp_path):
    from support.clidata import read_fastx, write_fasta  # tests/ is on the path (pyproject.toml)

    from seqalign_cli.jit import CompileNotice

    _check_prerequisites()
    instructions = dockerfile_instructions((ROOT / "Dockerfile").read_text())
    assert instructions and instructions[0][0] == "FROM", "the Dockerfile starts with FROM"
    assert [w for w, _ in instructions].count("FROM") == 1, "one stage"
    release = base_debian_release(instructions[0][1])
    mirror = host_debian_mirror()
    words = [w for w, _ in instructions]
    head = words.index("COPY") if "COPY" in words else len(words)

    CACHE.mkdir(parents=True, exist_ok=True)
    timings: dict[str, str] = {}
    start = time.perf_counter()
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one run at a time: any run-* folder now is a dead run's
        for stale in CACHE.glob("run-*"):
            remove_tree(stale)
        base = _base_root(instructions, head, release, mirror, timings)
        work = CACHE / f"run-{os.getpid()}"
        try:
            root = work / "root"
            work.mkdir()
            copied = time.perf_counter()
            subprocess.run(["cp", "-a", "--reflink=auto", str(base), str(root)], check=True)
            timings["copy"] = f"{time.perf_counter() - copied:.0f} s"
            shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
            replay = Replay(root, tmp_path, _build_env(root))
            with mounted(root):
                built = time.perf_counter()
                for word, args in instructions[1:head]:
                    replay.apply(word, args, run_steps=False)
                for word, args in instructions[head:]:
                    replay.apply(word, args)
                (root / BUILD_CA.lstrip("/")).unlink(missing_ok=True)
                timings["steps"] = f"{time.perf_counter() - built:.0f} s"
                jobs = time.perf_counter()
                _run_the_image(replay, read_fastx, write_fasta, CompileNotice.TEXT)
                timings["runs"] = f"{time.perf_counter() - jobs:.0f} s"
        finally:
            remove_tree(work)
    assert not mounts_under(CACHE)
    print(f"container recipe ({release}): base {timings['base']}, copy {timings.get('copy')}, "
          f"steps {timings.get('steps')}, runs {timings.get('runs')}, total {time.perf_counter() - start:.0f} s")
    for label, seconds in replay.durations:
        print(f"  {seconds:6.1f} s  {label[:100]}")


def _run_the_image(replay: Replay, read_fastx, write_fasta, compile_text: str):
    root = replay.root
    assert replay.entrypoint, "the Dockerfile has no ENTRYPOINT"
    user = replay.user
    uid, _, _ = replay.user_of(user)
    assert uid != 0, "the image runs as root"

    # the install cannot be changed by the user that runs it
    probe = ("import os, sys, seqalign_cli\n"
             "tops = {sys.prefix, os.path.dirname(seqalign_cli.__file__), *sys.argv[1:]}\n"
             "bad = [os.path.join(d, n) for top in tops for d, ds, fs in os.walk(top) for n in ['.', *fs]\n"
             "       if os.access(os.path.join(d, n), os.W_OK)]\n"
             "print(sys.prefix); print(len(bad)); print(*bad[:10], sep='\\n')\n")
    copied = [expand(shlex.split(a)[-1], replay.env) for w, a in dockerfile_instructions(
        (ROOT / "Dockerfile").read_text()) if w == "COPY"]
    proc = replay.run(["python3", "-c", probe, *copied], label="install writable?")
    assert proc.returncode == 0, proc.stderr
    prefix, count, *bad = proc.stdout.splitlines()
    assert prefix != "/usr", "seqalign is not installed in its own environment"
    assert count == "0", f"the install is writable by uid {uid}: {bad}"

    cache = root / replay.env["NUMBA_CACHE_DIR"].lstrip("/")
    markers = sorted(p.name for p in cache.glob("*.compiled"))
    assert markers == [f"seqalign-{__version__}-{f}.compiled" for f in sorted(FAMILIES)], markers
    before = _cache_files(cache)
    assert any(name.endswith(".nbc") for name in before), "the compile step cached nothing"

    # the folder that `docker run -v "$PWD:/data" -w /data` would give
    data = root / "data"
    data.mkdir()
    data.chmod(0o777)
    for name in ("reads.fa.gz", "windows.fa.gz"):
        shutil.copyfile(ROOT / "examples" / name, data / name)
    tests = ROOT / "tests" / "data"
    triplets = {k: read_fastx(tests / "triplet" / f"sars.{k}.fa")[:6] for k in "abc"}
    for k, recs in triplets.items():
        write_fasta(data / f"{k}.fa", recs)
    shutil.copyfile(tests / "graph" / "x.gfa", data / "x.gfa")
    reads = read_fastx(tests / "graph" / "small_dag_reads.fa")
    write_fasta(data / "reads.fa", reads)

    def seqalign(*args: str, as_user: str = user) -> str:
        proc = replay.run([*replay.entrypoint, *args], user=as_user, cwd="/data", timeout=JOB_TIMEOUT,
                          label=f"docker run --user {as_user} IMAGE {shlex.join(args)}")
        assert proc.returncode == 0, f"seqalign {shlex.join(args)}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        assert compile_text not in proc.stderr, f"seqalign {args[0]} compiled: {proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        return proc.stdout

    info = seqalign("info")
    assert f"seqalign {__version__}" in info, info
    assert re.search(r"^cpu backend: yes", info, re.M), info
    cuda = re.search(r"^cuda backend: .*", info, re.M)
    assert cuda and "not installed" not in cuda.group(0), f"the cuda extra is missing: {info}"

    # pair: BAM (pysam), read back by the image's samtools
    seqalign("pair", "--mode", "glocal", "reads.fa.gz", "windows.fa.gz", "-o", "pair.bam")
    proc = replay.run(["samtools", "view", "pair.bam"], cwd="/data", label="samtools view pair.bam")
    assert proc.returncode == 0, proc.stderr
    records = [line.split("\t") for line in proc.stdout.splitlines()]
    assert len(records) == 2000, len(records)
    assert all(len(r) >= 11 and not int(r[1]) & 4 and r[0] == r[2] for r in records), records[:3]
    assert [r[0] for r in records] == [str(i) for i in range(1, 2001)]

    # triplet: MAF, six blocks of three rows
    seqalign("triplet", "a.fa", "b.fa", "c.fa", "-o", "t.maf")
    blocks = _maf_blocks((data / "t.maf").read_text())
    assert len(blocks) == 6, len(blocks)
    for block in blocks:
        assert len(block) == 3 and len({len(row[6]) for row in block}) == 1, block
        for _, _, _, size, _, _, text in block:
            assert len(text.replace("-", "")) == int(size), block

    # graph: GAF, one row per read
    seqalign("graph", "x.gfa", "reads.fa", "-o", "g.gaf")
    rows = [line.split("\t") for line in (data / "g.gaf").read_text().splitlines()]
    lengths = {name.split()[0]: len(seq) for name, seq, _ in reads}
    assert len(rows) == len(reads), rows
    assert all(len(r) >= 12 and int(r[1]) == lengths[r[0]] for r in rows), rows[:2]

    # another uid, no passwd entry (docker run --user 20000:20000): still loads the compiled engine
    seqalign("pair", "reads.fa.gz", "windows.fa.gz", "-o", "any-uid.tsv", as_user=ANY_UID)
    lines = (data / "any-uid.tsv").read_text().splitlines()
    assert lines[0].startswith("#qname") and len(lines) == 2001, lines[:2]
    assert all(len(line.split("\t")) == 11 for line in lines), lines[:2]

    assert _cache_files(cache) == before, "a run compiled (or rewrote) NUMBA_CACHE_DIR entries"
