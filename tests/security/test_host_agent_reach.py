"""Issue 36, item 7: a host agent (``where: host``) reaches nothing beyond its attempt.

Before: its view hid only its own package and store, so it read the hidden tests of the
bundled packages in the checkout, read any store outside ``/tmp``, and what it left in
``/dev/shm`` or ``/var/tmp`` stayed on the host for the next attempt the pool gave its uid.
Now those directories are private tmpfs mounts in its view, every bundled copy and store it
could read is hidden at its start, a store opened by Gauntlet is private, and ``doctor``
says when an install leaves hidden tests or a store readable by other uids.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import yaml

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]  # attempt_kit

from arena import events as ev  # noqa: E402
from arena.agents import hostrun, reach  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.sandbox import quota  # noqa: E402
from attempt_kit import make_package, of, open_arena, stored  # noqa: E402
from gauntlet_tui.cli.doctor_cmd import reach_checks  # noqa: E402
from store import Store  # noqa: E402

root_bwrap = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("bwrap"), reason="host agents get a uid of their own as root with bwrap"
)

AGENT = textwrap.dedent(r"""
    import os, sys
    role, tok, *probes = sys.argv[1:]
    print("UID", os.getuid())
    for p in probes:
        try:
            with open(p, "rb") as f:
                print("PROBE", p, "CONTENT" if f.read(16) else "EMPTY")  # /dev/null bound over it: EACCES (nodev)
        except OSError as e:
            print("PROBE", p, type(e).__name__)
    left = [f"/dev/shm/gauntlet-reach-{tok}", f"/var/tmp/gauntlet-reach-{tok}"]
    for p in left:
        if role == "first":
            with open(p, "w") as f:
                f.write("left behind")
        print("SEES", p, os.path.exists(p))
""")

SECRET = reach.BUNDLED / "off-by-one" / "tests" / "hidden" / "test_sort_hidden.py"


def _agent(tmp_path: Path, role: str, tok: str, probes: list[Path]) -> str:
    data = {"name": f"reach-{role}", "where": "host", "command": ["python3", "-c", AGENT, role, tok, *map(str, probes)]}
    path = tmp_path / f"{role}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _outside_tmp() -> Path:
    """A world-traversable directory outside /tmp (a host agent's /tmp is private anyway),
    removed by the caller."""
    d = Path(__file__).resolve().parent / f".reach-{secrets.token_hex(4)}"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    return d


@root_bwrap
async def test_host_agent_reaches_no_checkout_no_store_and_leaves_nothing(tmp_path, monkeypatch):
    tok = secrets.token_hex(6)
    left = [Path(f"/dev/shm/gauntlet-reach-{tok}"), Path(f"/var/tmp/gauntlet-reach-{tok}")]
    outside = _outside_tmp()
    try:
        store = await Store.open(outside / "other.db")  # another arena's store, opened by Gauntlet
        await store.close()
        old = outside / "old.db"  # a store an older build left readable, in the arena's directory
        sqlite3.connect(old).execute("CREATE TABLE t (x)").connection.close()
        os.chmod(old, 0o644)
        monkeypatch.chdir(outside)
        if not (reach.readable_by(SECRET, quota.UID_BASE) and reach.readable_by(old, quota.UID_BASE)):
            pytest.skip("this checkout is not readable by other uids: nothing for an agent to reach")
        probes = [SECRET, outside / "other.db", old]
        ch = load_challenge(make_package(tmp_path / "pkg", fmt="sprint"))
        arena = await open_arena(tmp_path, None)
        try:
            a = arena.attempt(ch, _agent(tmp_path, "first", tok, probes))
            status_a = await asyncio.wait_for(arena.run_one(a), 120)
            on_host = [p for p in left if os.path.lexists(p)]  # after the first attempt, before the next
            assert old.stat().st_mode & 0o777 == 0o644  # hidden in the view, not changed on the host
            b = arena.attempt(ch, _agent(tmp_path, "second", tok, probes))
            status_b = await asyncio.wait_for(arena.run_one(b), 120)
            out = {}
            for x in (a, b):
                out[x] = "\n".join(e.data["text"] for e in of(await stored(arena, x.id), ev.AGENT_OUTPUT))
        finally:
            await arena.close()
    finally:
        for p in left:
            if os.path.lexists(p):
                os.unlink(p)
        shutil.rmtree(outside, ignore_errors=True)
    assert (status_a, status_b) == ("finished", "finished"), out
    for x in (a, b):
        text = out[x]
        assert f"UID {x.host_uid}" in text and x.host_uid in range(quota.UID_BASE, quota.UID_BASE + quota.UID_COUNT)
        assert f"PROBE {SECRET} FileNotFoundError" in text, text  # the checkout's copy is hidden
        # unreachable: refused (a private store; a hidden one), or not there at all when the
        # checkout itself lies under /tmp (a CI clone), which is private to the agent
        for p in (outside / "other.db", old):
            assert re.search(rf"PROBE {re.escape(str(p))} (PermissionError|FileNotFoundError)", text), text
    assert all(f"SEES {p} True" in out[a] for p in left), out[a]  # the first wrote them, in its view
    assert on_host == [], on_host  # ...and none reached the host
    assert all(f"SEES {p} False" in out[b] for p in left), out[b]  # the next attempt sees none


@root_bwrap
def test_the_uid_leaves_nothing_in_shared_directories(tmp_path):
    """What a pool uid owns at the top of /dev/shm and /var/tmp (an agent of an older build)
    is removed when the uid is reserved or released; other owners' files stay."""
    uid = quota.UID_BASE + quota.UID_COUNT - 1  # the pool's last uid: not one a running test holds
    tok = secrets.token_hex(6)
    mine = [Path(f"/dev/shm/gauntlet-reach-{tok}"), Path(f"/var/tmp/gauntlet-reach-{tok}.d")]
    other = Path(f"/var/tmp/gauntlet-reach-{tok}.other")
    try:
        mine[0].write_text("x")
        mine[1].mkdir()
        (mine[1] / "inner").write_text("x")
        other.write_text("y")
        for p in [*mine, mine[1] / "inner"]:
            os.lchown(p, uid, uid)
        hostrun.release_uid(uid, "not-a-reservation")  # kills nothing (none runs as it), frees nothing
        assert not any(os.path.lexists(p) for p in mine) and other.exists()
        assert reach.sweep_uid(os.getuid()) == 0 and other.exists()  # never the arena's own uid
    finally:
        for p in [*mine, other]:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            elif os.path.lexists(p):
                p.unlink()


def test_doctor_says_when_hidden_tests_or_stores_are_readable():
    d = Path(tempfile.mkdtemp(prefix="gauntlet-reach-", dir="/tmp"))
    try:
        os.chmod(d, 0o755)  # world-traversable, as an install's directories are
        copy = d / "bundled"
        shutil.copytree(reach.BUNDLED / "off-by-one", copy / "off-by-one")
        for dirpath, dirs, files in os.walk(d):
            for n in dirs:
                os.chmod(os.path.join(dirpath, n), 0o755)
            for n in files:
                os.chmod(os.path.join(dirpath, n), 0o644)
        sqlite3.connect(d / "g.db").execute("CREATE TABLE t (x)").connection.close()
        os.chmod(d / "g.db", 0o644)
        tests, stores = reach_checks(copies=[copy], store_dirs=[d])
        n = len(reach.secrets_of(copy))
        assert n >= 2 and not tests.ok and f"{n} under {copy}" in tests.detail and "chmod -R o-rwx" in tests.fix
        assert not stores.ok and str(d / "g.db") in stores.detail
        for s in reach.secrets_of(copy):
            os.chmod(s, 0o640)
        os.chmod(d / "g.db", 0o640)
        tests, stores = reach_checks(copies=[copy], store_dirs=[d])
        assert tests.ok and stores.ok, (tests, stores)
    finally:
        shutil.rmtree(d, ignore_errors=True)


async def test_a_store_and_its_data_directory_are_private(tmp_path):
    from arena import paths

    db = tmp_path / "s.db"
    store = await Store.open(db)
    try:
        data = paths.data_dir(db)
        await store.flush()
    finally:
        await store.close()
    for p in (db, data):
        assert p.stat().st_mode & 0o007 == 0, (p, oct(p.stat().st_mode))
    os.chmod(db, 0o644)  # an older build's store: private again once opened
    os.chmod(data, 0o755)
    await (await Store.open(db)).close()
    assert db.stat().st_mode & 0o777 == 0o640 and data.stat().st_mode & 0o777 == 0o750
