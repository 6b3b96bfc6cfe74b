"""Host-side file operations never follow what an agent planted in its workspace.

Agent code (a scripted agent's ``run`` step, inside the real sandbox of each backend)
replaces a workspace file and a directory with symlinks to host paths the test owns,
plants a hard link, and leaves FIFOs; the arena's next host-side writes (overlay,
delete, copy_in) and reads (watcher, snapshot) run as root on the host. No byte may
land outside the workspace, and nothing may block on a FIFO.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena.sandbox import safe_write  # noqa: E402
from arena import events as ev  # noqa: E402
from attempt_kit import CALC_FIXED, drive, make_package, of, open_arena, stored  # noqa: E402

HOST_TEXT = "host file the arena must never write\n"


def _host_targets(tmp_path: Path) -> tuple[Path, Path, Path]:
    host = tmp_path / "host"
    (host / "dir").mkdir(parents=True)
    f, victim = host / "file.py", host / "victim.txt"
    f.write_text(HOST_TEXT)
    victim.write_text(HOST_TEXT)
    os.chmod(host, 0o755)  # reachable by nobody is not the point: the arena writes as root
    return f, host / "dir", victim


def _assert_host_untouched(tmp_path: Path) -> None:
    host = tmp_path / "host"
    assert (host / "file.py").read_text() == HOST_TEXT
    assert (host / "victim.txt").read_text() == HOST_TEXT
    assert sorted(os.listdir(host / "dir")) == []
    assert sorted(os.listdir(host)) == ["dir", "file.py", "victim.txt"]


def test_write_tree_replaces_links_fifos_and_hard_links(tmp_path):
    hfile, hdir, victim = _host_targets(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(hfile, ws / "calc.py")
    os.symlink(hdir, ws / "sub")
    os.mkfifo(ws / "notes.txt")
    os.link(victim, ws / "hard.txt")
    src = tmp_path / "src"
    (src / "sub" / "deeper").mkdir(parents=True)
    (src / "calc.py").write_text(CALC_FIXED)
    (src / "sub" / "deeper" / "x.py").write_text("X = 1\n")
    (src / "notes.txt").write_text("notes\n")
    (src / "hard.txt").write_text("overwritten\n")
    safe_write.write_tree(src, ws)
    _assert_host_untouched(tmp_path)
    assert not (ws / "calc.py").is_symlink() and (ws / "calc.py").read_text() == CALC_FIXED
    assert not (ws / "sub").is_symlink() and (ws / "sub/deeper/x.py").read_text() == "X = 1\n"
    assert (ws / "notes.txt").read_text() == "notes\n"
    assert (ws / "hard.txt").read_text() == "overwritten\n"
    # a delete through a linked parent removes nothing outside; of a link, only the link
    os.symlink(hdir.parent, ws / "up")
    assert safe_write.remove_path(ws, "up/file.py") is False
    assert safe_write.remove_path(ws, "up") is True
    _assert_host_untouched(tmp_path)


def _plant(hfile: Path, hdir: Path, victim: Path) -> str:
    """The shell an agent runs in its sandbox: links to host paths, a hard link, FIFOs."""
    return (
        f"rm -f calc.py && ln -s {hfile} calc.py && mkdir -p sub && rm -rf sub && "
        f"ln -s {hdir} sub && ln -s {victim} gone.txt && mkfifo pipe && "
        f"rm -f test_calc.py && mkfifo test_calc.py"
    )


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_overlay_and_delete_never_write_through_agent_links(tmp_path, sandbox):
    hfile, hdir, victim = _host_targets(tmp_path)
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={
            "planter": [
                {"run": _plant(hfile, hdir, victim)},
                {"overlay": "agents/deep"},
                {"delete": ["gone.txt", "sub/absent.py"]},
                "submit",
            ]
        },
    )
    deep = pkg / "agents" / "deep"
    (deep / "sub").mkdir(parents=True)
    (deep / "calc.py").write_text(CALC_FIXED)
    (deep / "sub" / "extra.py").write_text("EXTRA = 1\n")
    (deep / "test_calc.py").write_text("from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n")
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    try:
        a = arena.attempt(load_challenge(pkg), "scripted:planter")
        [status] = await asyncio.wait_for(drive(arena, [a], clock, step=30.0), 240)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    _assert_host_untouched(tmp_path)
    assert status == "finished", [e.data for e in of(events, ev.INFRA_ERROR)]
    run = of(events, ev.COMMAND_RUN)
    assert run and run[0].data["exit_code"] == 0, run
    judged = of(events, ev.SUBMISSION_JUDGED)
    assert judged, "\n".join(f"{e.kind} {e.data}" for e in events)
    assert not of(events, ev.INFRA_ERROR)
    fb = of(events, ev.FEEDBACK_DELIVERED)
    assert fb and fb[0].data["feedback"]["tests"]["failed"] == 0, fb[0].data


async def test_fifos_never_block_watcher_or_snapshot(tmp_path):
    from arena.judge.verdict.snapshot import take_snapshot
    from arena.telemetry.watch import WorkspaceWatcher

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("A = 1\n")
    seen: list[dict] = []
    w = WorkspaceWatcher()
    await asyncio.wait_for(w.register("x", ws, seen.append), 10)
    os.mkfifo(ws / "pipe")
    os.mkfifo(ws / "b.py")
    (ws / "a.py").write_text("A = 2\nB = 3\n")
    assert await asyncio.wait_for(w.scan(), 10) == 3
    assert {c["path"] for c in seen} == {"a.py", "b.py", "pipe"}
    snap = await asyncio.wait_for(asyncio.to_thread(take_snapshot, ws, tmp_path / "snaps"), 10)
    assert snap.files == ["a.py"]
    assert any("special file" in n for n in snap.notices), snap.notices


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_fifo_attempt_stops_on_sigint(tmp_path, sandbox):
    """The real ``gauntlet run`` process, its agent leaving FIFOs that the watcher scans
    every 0.25 s: SIGINT ends it (the attempt closed ``interrupted``), nothing hangs."""
    import signal
    import subprocess
    import time

    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={"fifo": [{"run": "mkfifo pipe && rm -f calc.py && mkfifo calc.py"}, {"wait": "10m"}, "submit"]},
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}  # this checkout's arena, not an installed one
    store = tmp_path / "g.db"
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            str(pkg),
            "--agent",
            "scripted:fifo",
            "--sandbox",
            sandbox,
            "--headless",
            "--store",
            str(store),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        ws_root = tmp_path / "g.db.d" / "workspaces"
        while not list(ws_root.glob("*/pipe")):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "the agent never made its FIFO"
            time.sleep(0.1)
        time.sleep(1.5)  # several watcher scans over the FIFOs (interval 0.25 s)
        assert p.poll() is None, p.communicate()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert b"interrupted" in out, (out, err)
