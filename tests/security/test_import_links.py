"""Issue 36 item 3: `challenge import` and `challenge generate --builder` never follow a link
out of the task or the builder's package. A link is kept (as a link) when it resolves inside
what is copied, refused otherwise (exit 2 naming the file); a copy is bounded in bytes and
entries (arena/pipeline/safe_copy.py) and never copies into its own destination.

Every case plants a host file or directory outside the task holding a marker and checks that
the marker reaches no file of the package (on the code before this issue each was copied in)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "task_import"))
from fixtures import harbor_python, harbor_steps  # noqa: E402

SECRET = "HOST-SECRET-issue36"


def _limits() -> None:  # the CLI under test: bounded files, CPU and its own process group
    os.setsid()
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    p = subprocess.Popen(
        [sys.executable, "-m", "gauntlet_tui", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits,
    )
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.communicate()
        raise AssertionError(f"gauntlet {' '.join(args)} still running after {timeout}s") from None
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A host directory outside every task: a root-only file and a subdirectory."""
    h = tmp_path / "host"
    (h / "dir").mkdir(parents=True)
    (h / "secret.txt").write_text(SECRET + "\n")
    (h / "secret.txt").chmod(0o600)
    (h / "dir" / "key.pem").write_text(SECRET + " in a directory\n")
    return h


def _leaks(root: Path) -> list[str]:
    """Files under ``root`` holding the marker, and links leading out of ``root``."""
    found = []
    if not root.exists():
        return found
    for d, dirs, names in os.walk(root, followlinks=False):
        for n in dirs + names:
            p = Path(d, n)
            if p.is_symlink():
                real = Path(os.path.realpath(p))
                if root.resolve() not in real.parents:
                    found.append(f"{p.relative_to(root)} -> {os.readlink(p)}")
            elif p.is_file() and SECRET.encode() in p.read_bytes():
                found.append(str(p.relative_to(root)))
    return found


def _import(task: Path, out: Path):
    from arena.pipeline.task_import import ImportError_, import_task

    with pytest.raises(ImportError_) as e:
        import_task(task, out)
    return str(e.value)


def test_an_instruction_linked_to_a_host_file_is_refused_exit_2(tmp_path, host):
    task = harbor_python(tmp_path / "task")
    (task / "instruction.md").unlink()
    (task / "instruction.md").symlink_to(host / "secret.txt")
    out = tmp_path / "pkg"
    r = _cli("challenge", "import", str(task), "--out", str(out), "--no-build")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "instruction.md" in r.stderr and "outside" in r.stderr and "Traceback" not in r.stderr
    assert SECRET not in r.stdout + r.stderr
    assert _leaks(out) == [] and not out.exists()  # nothing half-written is left
    # a link inside the task is followed: the briefing is the file it names
    (task / "instruction.md").unlink()
    (task / "docs").mkdir()
    (task / "docs" / "brief.md").write_text("Fix add in /app/calc.py.\n")
    (task / "instruction.md").symlink_to("docs/brief.md")
    r = _cli("challenge", "import", str(task), "--out", str(out), "--no-build", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out / "briefing.md").read_text() == "Fix add in /app/calc.py.\n" and _leaks(out) == []


@pytest.mark.parametrize("target", ["secret.txt", "dir"], ids=["file", "directory"])
def test_a_link_in_a_copied_directory_to_a_host_path_is_refused(tmp_path, host, target):
    task = harbor_python(tmp_path / "task")
    env = task / "environment"
    (env / "Dockerfile").write_text("FROM gauntlet-base\nWORKDIR /app\nCOPY app/ /app/\n")
    (env / "app" / "lib").mkdir(parents=True)
    (env / "app" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (env / "app" / "lib" / "leak").symlink_to(host / target)
    msg = _import(task, tmp_path / "pkg")
    assert "environment/app/lib/leak" in msg and str(host / target) in msg, msg
    assert _leaks(tmp_path / "pkg") == []


def test_links_inside_a_copied_directory_are_kept_as_links(tmp_path):
    from arena.pipeline.task_import import import_task

    task = harbor_python(tmp_path / "task")
    env = task / "environment"
    (env / "Dockerfile").write_text("FROM gauntlet-base\nWORKDIR /app\nCOPY app/ /app/\n")
    (env / "app" / "lib").mkdir(parents=True)
    (env / "app" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (env / "app" / "lib" / "calc_link.py").symlink_to("../calc.py")
    (env / "app" / "here").symlink_to("lib")
    out = tmp_path / "pkg"
    import_task(task, out)
    link = out / "starter" / "lib" / "calc_link.py"
    assert link.is_symlink() and os.readlink(link) == "../calc.py" and "a - b" in link.read_text()
    assert os.readlink(out / "starter" / "here") == "lib"
    assert (out / "environment" / "app" / "lib" / "calc_link.py").is_symlink() and _leaks(out) == []


def test_a_link_to_a_parent_of_out_never_copies_into_itself(tmp_path):
    """The link names a directory holding --out: before, the copy followed it into the
    package it was writing (gigabytes in seconds). Bounded here too: the CLI runs under
    RLIMIT_FSIZE and a timeout, and tmp_path must stay small."""
    work = tmp_path / "work"
    task = harbor_python(work / "task")
    env = task / "environment"
    (env / "Dockerfile").write_text("FROM gauntlet-base\nWORKDIR /app\nCOPY app/ /app/\n")
    (env / "app").mkdir()
    (env / "app" / "up").symlink_to(work)
    out = work / "pkg"
    r = _cli("challenge", "import", str(task), "--out", str(out), "--no-build", timeout=60)
    size = sum(f.stat().st_size for f in work.rglob("*") if f.is_file() and not f.is_symlink())
    assert size < 64 * 1024, f"{size} bytes written under {work}"
    assert r.returncode == 2 and "environment/app/up" in r.stderr and "Traceback" not in r.stderr, r.stderr
    # --out inside the task directory is refused before anything is copied
    r = _cli("challenge", "import", str(task), "--out", str(env / "pkg"), "--no-build")
    assert r.returncode == 2 and "inside the task directory" in r.stderr, r.stderr
    assert not (env / "pkg").exists()


@pytest.mark.parametrize(
    "where",
    ["tests/conftest.py", "tests/test.sh", "tests/data", "solution/notes.txt", "solution/solve.sh"],
)
def test_links_out_of_tests_and_solution_are_refused(tmp_path, host, where):
    task = harbor_python(tmp_path / "task")
    p = task / where
    if p.exists():
        p.unlink()
    p.symlink_to(host / ("dir" if where == "tests/data" else "secret.txt"))
    msg = _import(task, tmp_path / "pkg")
    assert where in msg, msg
    assert _leaks(tmp_path / "pkg") == []


@pytest.mark.parametrize(
    "where",
    ["steps/greet/tests/helper.sh", "steps/count/solution/data", "tests/check.sh", "steps/count/instruction.md"],
)
def test_links_out_of_a_multi_step_task_are_refused(tmp_path, host, where):
    task = harbor_steps(tmp_path / "task")
    p = task / where
    if p.exists():
        p.unlink()
    p.parent.mkdir(parents=True, exist_ok=True)
    p.symlink_to(host / ("dir" if where.endswith("data") else "secret.txt"))
    msg = _import(task, tmp_path / "pkg")
    assert where in msg, msg
    assert _leaks(tmp_path / "pkg") == []


def test_a_copy_is_bounded_in_bytes_and_entries(tmp_path):
    from arena.pipeline import safe_copy

    src = tmp_path / "src"
    src.mkdir()
    for i in range(30):
        (src / f"f{i}").write_bytes(b"x" * 1000)
    with pytest.raises(safe_copy.CopyRefused, match="20 entries"):
        safe_copy.copy_tree(src, tmp_path / "a", safe_copy.Budget(max_entries=20), label="src")
    with pytest.raises(safe_copy.CopyRefused, match="src/f"):
        safe_copy.copy_tree(src, tmp_path / "b", safe_copy.Budget(max_bytes=10_000), label="src")
    assert sum(f.stat().st_size for f in (tmp_path / "b").iterdir()) <= 11_000
    # the stated defaults, and one import shares one budget across its copies
    assert safe_copy.MAX_BYTES == 256 << 20 and safe_copy.MAX_ENTRIES == 20_000
    with pytest.raises(safe_copy.CopyRefused, match="inside it"):
        safe_copy.copy_tree(src, src / "deeper" / "copy", safe_copy.Budget(), label="src")
    assert not (src / "deeper").exists()


def test_a_fifo_in_a_task_is_refused_not_blocked_on(tmp_path):
    task = harbor_python(tmp_path / "task")
    os.mkfifo(task / "tests" / "pipe")
    msg = _import(task, tmp_path / "pkg")
    assert "tests/pipe" in msg and "FIFO" in msg, msg


def test_a_builder_package_linked_to_a_host_directory_is_refused_before_gate_2(tmp_path, host):
    """`generate --builder FILE`: the builder's agent makes `package` a link to a host
    directory. Before, the directory was copied into --out/package, then gate 2 rejected it;
    now nothing is copied and gate 2's first finding names the link."""
    agent = tmp_path / "builder.yaml"
    agent.write_text(f"name: link-builder\ncommand: {json.dumps(f'ln -s {host} package')}\n")
    out = tmp_path / "gen"
    r = _cli(
        "challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
        "--out", str(out), "--until", "package", "--sandbox", "local", "--store", str(tmp_path / "g.db"),
        "--builder", str(agent), timeout=120,
    )  # fmt: skip
    assert r.returncode == 1 and "escalated to human review" in r.stdout, r.stdout + r.stderr
    assert _leaks(out) == [] and not (out / "package").exists()
    attempts = json.loads((out / "report.json").read_text())["attempts"]
    assert len(attempts) == 3
    for a in attempts:
        b = a["stages"][-1]
        assert b["stage"] == "builder" and b["status"] == "rejected"
        f = b["findings"][0]
        assert (f["check"], f["severity"]) == ("package_links", "error")
        assert f["detail"].startswith("package: a link to") and str(host) in f["detail"], f
        assert b["outputs"]["builder"]["refused"] == f["detail"]


def test_a_builder_package_with_a_link_out_inside_is_refused_whole(tmp_path, host):
    """The copy `build_with_agent` makes of the workspace's package/: a link inside it that
    resolves inside is kept, one that leads out refuses the package (nothing kept)."""
    from arena.pipeline.generate.model_builder import copy_package

    ws = tmp_path / "ws"
    (ws / "package" / "starter").mkdir(parents=True)
    (ws / "package" / "briefing.md").write_text("# b\n")
    (ws / "package" / "starter" / "brief.md").symlink_to("../briefing.md")
    out = tmp_path / "gen" / "package"
    assert copy_package(ws, out) is None
    assert os.readlink(out / "starter" / "brief.md") == "../briefing.md" and _leaks(out.parent) == []
    shutil.rmtree(out)
    (ws / "package" / "starter" / "leak").symlink_to(host / "secret.txt")
    why = copy_package(ws, out)
    assert why is not None and "package/starter/leak" in why and str(host) in why
    assert not out.exists() and _leaks(out.parent) == []
