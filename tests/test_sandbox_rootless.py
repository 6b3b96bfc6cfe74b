"""The local backend's fallback without root: unprivileged bwrap + rlimits (no cgroup).

Run from a root test process by dropping to uid 65534 with setpriv, so the fallback is
exercised on the same machine as the privileged mode."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent("""
    import asyncio, json, os, sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from arena.sandbox import get_backend, Limits
    async def main():
        be = get_backend("local")
        ws = Path(sys.argv[2])
        sb = await be.create(ws, Limits(memory_mb=256, pids=32, tmpfs_mb=8, file_mb=4))
        out = {"privileged": be.privileged, "cgroups": be.use_cgroups}
        r = await sb.exec(["sh", "-c", "id -u; df -k /tmp | tail -1; echo w > /workspace/f"])
        out["id"], out["df"] = r.stdout.decode().splitlines()[:2]
        r = await sb.exec(["python", "-c", "import os\\nwhile True: os.fork()"], timeout=10)
        out["fork"] = r.stderr.decode()
        r = await sb.exec(["python", "-c", "b = bytearray(1 << 30); print('survived')"])
        out["mem"] = [r.exit_code, r.stdout.decode(), r.stderr.decode()[-200:]]
        r = await sb.exec(["sh", "-c", "cat /etc/shadow; ls /root"])
        out["shadow"] = r.exit_code
        await sb.close()
        out["left"] = os.listdir(os.environ["GAUNTLET_SANDBOX_STATE"])
        print(json.dumps(out))
    asyncio.run(main())
""")


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to drop to an unprivileged uid"
)
def test_rootless_fallback_contains_fork_and_memory_bombs():
    # pytest's tmp_path lives under a 0700 root-only directory: use a fresh one in /tmp
    tmp_path = Path(tempfile.mkdtemp(prefix="gauntlet-rootless-"))
    try:
        _run(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _run(tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o777)
    ws, state = tmp_path / "ws", tmp_path / "state"
    ws.mkdir()
    state.mkdir()
    for d in (ws, state):
        os.chown(d, 65534, 65534)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GAUNTLET_SANDBOX_STATE": str(state)}
    r = subprocess.run(
        [
            "setpriv",
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            SCRIPT,
            root,
            str(ws),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["privileged"] is False and out["cgroups"] is False
    assert out["id"] == "65534"
    assert out["df"].split()[1] == str(8 * 1024)  # /tmp is an 8 MB tmpfs
    assert "BlockingIOError" in out["fork"]  # RLIMIT_NPROC stopped the fork bomb
    code, stdout, stderr = out["mem"]
    assert code != 0 and "survived" not in stdout and "MemoryError" in stderr
    assert out["shadow"] != 0
    assert (ws / "f").read_text() == "w\n"
    assert out["left"] == []
