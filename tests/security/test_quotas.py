"""Per-sandbox identity and quotas (issue 11 item 5), on both backends, as root:
a writable workspace and /tmp are bounded in bytes and inodes (ENOSPC inside the
sandbox, never the host disk), the workspace is kept on disk at close (at most the
quota), and each local sandbox runs as a uid of its own, freed at close."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox import Limits, get_backend
from arena.sandbox.quota import UID_BASE, UID_COUNT, _uid_dir

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="quotas need root (mount)")
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]
LIMITS = Limits(wall_s=60, tmpfs_mb=8, tmp_inodes=256, workspace_mb=16, workspace_inodes=300)
FILL = (
    "import os, sys\n"
    "d = sys.argv[1]\n"
    "def big():\n"
    "    try:\n"
    "        with open(os.path.join(d, 'big'), 'wb') as f:\n"
    "            for _ in range(64): f.write(b'x' * (1 << 20)); f.flush()\n"
    "    except OSError as e: return e.errno\n"
    "def many():\n"
    "    try:\n"
    "        for i in range(5000): open(os.path.join(d, f'n{i}'), 'w').close()\n"
    "    except OSError as e: return e.errno\n"
    "print(big(), os.path.getsize(os.path.join(d, 'big')) >> 20, many())\n"
)


def _mounted(path: Path) -> bool:
    return any(ln.split()[4] == str(path) for ln in Path("/proc/self/mountinfo").read_text().splitlines())


@pytest.mark.parametrize("name", BACKENDS)
async def test_workspace_and_tmp_quota(tmp_path, name):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "keep.txt").write_text("kept\n")
    (ws / "fill.py").write_text(FILL)
    sb = await get_backend(name).create(ws, LIMITS)
    try:
        assert _mounted(ws)
        r = await sb.exec(["python3", "/workspace/fill.py", "/workspace"])
        big_errno, big_mb, many_errno = r.stdout.decode().split()
        assert (big_errno, many_errno) == ("28", "28"), r.stderr  # ENOSPC: bytes, then inodes
        assert int(big_mb) <= 16
        r = await sb.exec(["python3", "/workspace/fill.py", "/tmp"])
        big_errno, big_mb, many_errno = r.stdout.decode().split()
        assert (big_errno, many_errno) == ("28", "28") and int(big_mb) <= 8
    finally:
        await sb.close()
    assert not _mounted(ws)  # kept on disk, bounded by the quota
    assert (ws / "keep.txt").read_text() == "kept\n" and (ws / "big").stat().st_size <= 16 << 20
    assert not list(tmp_path.glob("ws.quota-*"))


async def test_local_sandboxes_have_distinct_uids_freed_at_close(tmp_path):
    be = get_backend("local")
    boxes = []
    for i in range(3):
        (tmp_path / f"w{i}").mkdir()
        boxes.append(await be.create(tmp_path / f"w{i}", LIMITS))
    try:
        uids = [int((await sb.exec(["id", "-u"])).stdout) for sb in boxes]
        assert uids == [sb.uid for sb in boxes] and len(set(uids)) == 3
        assert all(UID_BASE <= u < UID_BASE + UID_COUNT for u in uids)
        assert all((_uid_dir() / str(u)).read_text() == sb.id for u, sb in zip(uids, boxes))
        # a file written in the workspace is owned by that sandbox's uid on the host
        await boxes[0].exec(["sh", "-c", "echo x > /workspace/mine"])
        assert (tmp_path / "w0" / "mine").stat().st_uid == uids[0]
    finally:
        for sb in boxes:
            await sb.close()
    assert not any((_uid_dir() / str(u)).exists() for u in uids)
