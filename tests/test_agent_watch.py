"""The one workspace watcher: file.changed with lines added/removed, driven by scan()."""

from __future__ import annotations

import os
from pathlib import Path

from arena.telemetry.watch import MAX_BACKOFF, WorkspaceWatcher, line_delta


def test_line_delta():
    assert line_delta(["a", "b", "c"], ["a", "B", "c", "d"]) == (2, 1)
    assert line_delta(None, ["x", "y"]) == (2, 0)
    assert line_delta(["x"], None) == (0, 1)


async def test_scan_reports_created_modified_deleted(tmp_path: Path):
    ws1, ws2 = tmp_path / "a-1", tmp_path / "a-2"
    ws1.mkdir()
    ws2.mkdir()
    (ws1 / "keep.py").write_text("one\ntwo\nthree\n")
    (ws1 / "gone.py").write_text("x\ny\n")
    seen: dict[str, list[dict]] = {"a-1": [], "a-2": []}
    w = WorkspaceWatcher(tmp_path)
    await w.register("a-1", ws1, seen["a-1"].append)
    await w.register("a-2", ws2, seen["a-2"].append)
    assert await w.scan() == 0  # baseline taken at register

    (ws1 / "keep.py").write_text("one\nTWO\nthree\nfour\n")
    os.utime(ws1 / "keep.py", ns=(1, 1))  # different mtime even on coarse clocks
    (ws1 / "gone.py").unlink()
    (ws1 / "sub").mkdir()
    (ws1 / "sub" / "new.py").write_text("a\nb\nc\n")
    (ws1 / "__pycache__").mkdir()
    (ws1 / "__pycache__" / "x.pyc").write_bytes(b"\0\1")
    (ws2 / "other.txt").write_text("hello\n")
    assert await w.scan() == 4
    by_path = {c["path"]: c for c in seen["a-1"]}
    assert by_path["keep.py"] == {"path": "keep.py", "change": "modified", "lines_added": 2, "lines_removed": 1}
    assert by_path["gone.py"] == {"path": "gone.py", "change": "deleted", "lines_added": 0, "lines_removed": 2}
    assert by_path["sub/new.py"] == {"path": "sub/new.py", "change": "created", "lines_added": 3, "lines_removed": 0}
    assert seen["a-2"] == [{"path": "other.txt", "change": "created", "lines_added": 1, "lines_removed": 0}]

    # a touch without a content change is not a change; nothing is reported twice
    os.utime(ws1 / "keep.py", ns=(5, 5))
    assert await w.scan() == 0
    w.unregister("a-2")
    (ws2 / "other.txt").write_text("changed\n")
    assert await w.scan() == 0
    assert len(seen["a-2"]) == 1


async def test_scan_one_attempt_and_binary_files(tmp_path: Path):
    ws = tmp_path / "a-3"
    ws.mkdir()
    got: list[dict] = []
    w = WorkspaceWatcher(tmp_path)
    await w.register("a-3", ws, got.append)
    (ws / "blob.bin").write_bytes(b"\0" * 100)
    assert await w.scan("a-other") == 0
    assert await w.scan("a-3") == 1
    assert got == [{"path": "blob.bin", "change": "created", "lines_added": 0, "lines_removed": 0}]


async def test_many_workspaces_one_watcher(tmp_path: Path):
    w = WorkspaceWatcher(tmp_path)
    counts: dict[str, int] = {}
    for i in range(200):
        ws = tmp_path / f"a-{i:08x}"
        ws.mkdir()
        counts[ws.name] = 0
        await w.register(ws.name, ws, lambda c, n=ws.name: counts.__setitem__(n, counts[n] + 1))
    for i in range(200):
        (tmp_path / f"a-{i:08x}" / "f.txt").write_text("x\n" * i)
    assert await w.scan() == 200
    assert set(counts.values()) == {1}


def test_pace_keeps_a_workspace_under_its_share_of_a_core():
    w = WorkspaceWatcher(interval=0.25)  # SCAN_SHARE 2 %: 5 ms of scanning per interval
    assert w.pace(0.0) == 0 and w.pace(0.004) == 0
    assert w.pace(0.05) == 9  # a 50 ms scan: one periodic scan in ten (2.5 s)
    assert w.pace(10.0) == MAX_BACKOFF


async def test_a_big_workspace_is_scanned_less_often_and_loses_no_change(tmp_path: Path):
    small, big = tmp_path / "a-small", tmp_path / "a-big"
    small.mkdir()
    (small / "s.txt").write_text("s\n")
    for d in range(10):
        (big / f"d{d}").mkdir(parents=True)
        for i in range(500):
            (big / f"d{d}" / f"f{i}.txt").write_bytes(b"x\n")
    got: dict[str, list[str]] = {"a-small": [], "a-big": []}
    w = WorkspaceWatcher(tmp_path, interval=0.05)  # 1 ms of scanning per interval
    for name, ws in (("a-small", small), ("a-big", big)):
        await w.register(name, ws, lambda c, n=name: got[n].append(c["path"]))
    ws_small, ws_big = w._watches["a-small"], w._watches["a-big"]
    assert ws_small.skip == 0  # a few files: scanned every interval
    skip = ws_big.skip
    assert skip >= 1 and skip == w.pace(ws_big.cost)  # 5,000 stats cost more than 1 ms anywhere
    (big / "d3" / "f7.txt").write_text("x\ny\n")
    polls = 0
    while not got["a-big"]:
        (small / "s.txt").write_text(f"s\n{polls}\n")
        await w.scan(periodic=True)
        polls += 1
        assert got["a-small"] == ["s.txt"] * polls  # the small one is never held back
        assert polls <= MAX_BACKOFF + 1
    assert got["a-big"] == ["d3/f7.txt"] and polls == skip + 1
    (big / "d9" / "f1.txt").unlink()
    assert await w.scan("a-big") == 1  # an explicit scan (before a submission) never waits
    assert got["a-big"] == ["d3/f7.txt", "d9/f1.txt"]
