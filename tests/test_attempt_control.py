"""The arena's control channel (arena/attempt/control.py), with real processes.

A real ``gauntlet run`` (headless, local sandbox, scripted elite at time scale 1, so it
is still running minutes later) runs in a subprocess. From this process and others:

1. a process of another uid (``setpriv --reuid 43210``) cannot connect (mode 0600); were
   the socket's mode wider, it is still refused by its peer credentials, and the attempt
   runs on;
2. garbage is answered with an error and the channel goes on serving: not JSON, a line
   past the bound, no ``op``, an unknown op, a stop without an attempt, an attempt the
   arena does not run; connections past the bound are refused at once;
3. the real client (``ask_stop``, what ``gauntlet serve``'s operator page calls) stops the
   attempt: it ends ``interrupted``, "stopped by the operator" (as the TUI's stop key ends
   it), the run exits 0, and the channel is gone with its process.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # attempt_kit

from arena.attempt import control  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from attempt_kit import make_package, open_arena  # noqa: E402
from store import Store  # noqa: E402

PY = "/usr/bin/python3"  # readable by any uid (the test's interpreter may not be)
FOREIGN = 43210

CONNECT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(type(e).__name__)
    sys.exit(0)
try:
    s.sendall(('{"op":"stop","attempt":"%s"}\n' % sys.argv[2]).encode())
except OSError:
    pass  # a refusing server may have closed already: its reply is still to be read
try:
    print("reply", s.recv(300).decode().strip() or "none")
except OSError as e:
    print(type(e).__name__)
"""


def _as_foreign_uid(path: Path, attempt: str) -> str:
    r = subprocess.run(
        [
            "setpriv",
            "--reuid",
            str(FOREIGN),
            "--regid",
            str(FOREIGN),
            "--clear-groups",
            PY,
            "-c",
            CONNECT,
            str(path),
            attempt,
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def _exchange(path: Path, lines: list[bytes]) -> list[dict]:
    """Send each line on one connection; one decoded reply per line."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(str(path))
        f = s.makefile("rwb")
        out = []
        for line in lines:
            f.write(line + b"\n")
            f.flush()
            out.append(json.loads(f.readline()))
        return out


def _started(run: subprocess.Popen) -> None:
    """Returns once the run says its attempt started (it is in the store)."""
    assert run.stdout is not None
    seen = []
    for line in run.stdout:
        seen.append(line)
        if "] started " in line:
            return
    pytest.fail("the run ended before its attempt started:\n" + "".join(seen))


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="foreign uids need root (setpriv)")
async def test_stop_through_the_control_channel(tmp_path):
    db = tmp_path / "g.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_CONFIG_DIR": str(tmp_path / "cfg")}
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            "off-by-one",
            "--agent",
            "scripted:elite",
            "--headless",
            "--sandbox",
            "local",
            "--time-scale",
            "1",
            "--store",
            str(db),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        await asyncio.wait_for(asyncio.to_thread(_started, run), 60)
        async with await Store.open(db) as st:
            rows = await asyncio.wait_for(_stored(st), 20)  # its writer commits in batches
            assert len(rows) == 1 and rows[0]["status"] == "running", rows
            aid = rows[0]["id"]
            pid = await control.runner_pid(st, aid)
        assert pid == run.pid
        path = control.socket_path(db, pid)
        assert path.is_socket() and (path.stat().st_mode & 0o777) == 0o600 and path.stat().st_uid == os.geteuid()

        # 1. another uid: no connection at all; with a wide mode, refused by its credentials
        assert _as_foreign_uid(path, aid) == "PermissionError"
        os.chmod(path, 0o666)
        try:
            out = _as_foreign_uid(path, aid)
        finally:
            os.chmod(path, 0o600)
        assert out.startswith("reply ") and json.loads(out[6:]) == {
            "ok": False,
            "code": "forbidden",
            "reason": "the arena's control channel serves its own user (or root) only",
        }

        # 2. garbage: an error each, the connection and the channel go on
        replies = _exchange(
            path,
            [
                b"not json",
                b"x" * 100_000,
                b"[1, 2]",
                b'{"op": 7}',
                b'{"op": "fly"}',
                b'{"op": "stop"}',
                b'{"op": "stop", "attempt": ["a"]}',
                b'{"op": "stop", "attempt": "a-00000000"}',
                b'{"op": "ping"}',
            ],
        )
        codes = [r.get("code") for r in replies[:-1]]
        assert codes == [
            "bad_request",
            "too_large",
            "bad_request",
            "bad_request",
            "bad_request",
            "bad_request",
            "bad_request",
            "unknown_attempt",
        ], replies
        assert "not JSON" in replies[0]["reason"] and "4096 bytes" in replies[1]["reason"]
        assert "unknown op 'fly'" in replies[4]["reason"] and '"attempt"' in replies[5]["reason"]
        assert "pid %d" % pid in replies[7]["reason"]
        assert replies[-1] == {"ok": True, "pid": pid, "attempts": [aid]}
        # many connections: past the bound, one refusal each and closed at once
        held = [socket.socket(socket.AF_UNIX) for _ in range(control.LIMITS.connections)]
        for s in held:
            s.connect(str(path))
        with socket.socket(socket.AF_UNIX) as extra:
            extra.settimeout(10)
            extra.connect(str(path))
            refusal = json.loads(extra.makefile("rb").readline())
        assert refusal["code"] == "too_many_connections", refusal
        for s in held:
            s.close()

        async with await Store.open(db) as st:
            assert (await st.get_attempt(aid))["status"] == "running"  # nothing above touched it

            # 3. the real client stops it
            reply = await asyncio.wait_for(_until_served(st, aid), 20)
            assert reply.ok and reply.pid == pid, reply
            assert await asyncio.to_thread(run.wait, 60) == 0
            assert run.stdout is not None and run.stdout.read().strip().splitlines()[-1] == aid
            row = await st.get_attempt(aid)
            finished = await st.events(aid, kinds=["attempt.finished"])
        assert row["status"] == "interrupted"
        assert [(e.data["status"], e.data["reason"]) for e in finished] == [("interrupted", "stopped by the operator")]
        assert not path.exists()  # the channel ended with its process
        async with await Store.open(db) as st:
            gone = await control.ask_stop(st, aid)
        assert not gone.ok and "has no control channel" in gone.reason
    finally:
        run.kill()
        run.wait()


async def _stored(st: Store) -> list[dict]:
    while not (rows := await st.list_attempts(5)) or await control.runner_pid(st, rows[0]["id"]) is None:
        await asyncio.sleep(0.05)  # another process's commit: nothing to wait on but the file
    return rows


async def _until_served(st: Store, aid: str) -> control.Reply:
    """The held connections were just closed: ask until the channel has a slot again."""
    while True:
        reply = await control.ask_stop(st, aid)
        if reply.ok or "connections at once" not in reply.reason:
            return reply
        await asyncio.sleep(0.05)  # the server frees the closed connections' slots


async def test_a_placed_attempt_is_stopped_by_cancelling_its_placement(tmp_path, monkeypatch):
    """``--cluster``: the attempt runs on a node; the channel cancels the task that placed
    it (the node then ends it interrupted), and run_one answers ``interrupted``. One not
    placed yet (waiting for a slot) is refused; one stopped by its own task (the TUI's
    RemoteHandle) is still cancelled as before. A connection that stays silent is closed
    by the channel (its slot is not held forever)."""
    monkeypatch.setattr(control, "IDLE_TIMEOUT_S", 0.2)
    ch = load_challenge(make_package(tmp_path / "pkg", agents={"idle": [{"wait": "10m"}]}))
    arena = await open_arena(tmp_path, parallel=1)
    told: list[str] = []
    entered: list[str] = []
    forever: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def place(attempt) -> str:  # noqa: ANN001 — a node that runs until cancelled
        entered.append(attempt.id)
        try:
            return await asyncio.shield(forever)
        except asyncio.CancelledError:
            told.append(attempt.id)
            raise

    arena.place = place
    try:
        one, two, three = (arena.attempt(ch, "scripted:idle") for _ in range(3))
        first = asyncio.create_task(arena.run_one(one))
        second = asyncio.create_task(arena.run_one(two))  # waits for the one slot
        while not entered:
            await asyncio.sleep(0)  # yield until the first is placed
        assert arena.control is not None
        path = arena.control.path
        reader, writer = await asyncio.open_unix_connection(str(path))
        assert await asyncio.wait_for(reader.read(), 10) == b""  # silent: closed, no reply
        writer.close()
        queued = await control.request(path, {"op": "stop", "attempt": two.id})
        assert not queued.ok and "not been placed on a node yet" in queued.reason
        stopped = await control.request(path, {"op": "stop", "attempt": one.id})
        assert stopped.ok
        assert await first == "interrupted" and told == [one.id]
        again = await control.request(path, {"op": "stop", "attempt": one.id})
        assert not again.ok and "not an attempt this arena" in again.reason  # over: no longer registered
        while two.id not in entered:
            await asyncio.sleep(0)  # yield until the second takes the slot
        second.cancel()  # its own task stopped (RemoteHandle): cancelled, not swallowed
        with pytest.raises(asyncio.CancelledError):
            await second
        assert told == [one.id, two.id]
        assert three.id not in arena.control.stops  # never run: never registered
    finally:
        await arena.close()
    assert not path.exists()  # the last arena of the process closed the channel
