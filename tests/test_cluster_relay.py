"""The parts of arena.cluster that need no Ray: content-hashed shipping and the node's
relay store (flush returns only once the command's machine has acknowledged)."""

from __future__ import annotations

import asyncio
import io
import tarfile
from pathlib import Path

import pytest

from arena.cluster import resolve_address, ship
from arena.cluster.node import RelayStore, RelayStoreError
from arena.events import Event

BUNDLED = Path(__file__).resolve().parents[1] / "arena" / "bundled"


def test_pack_is_deterministic_and_round_trips(tmp_path):
    h1, d1 = ship.pack(BUNDLED / "off-by-one")
    h2, d2 = ship.pack(BUNDLED / "off-by-one")
    assert h1 == h2 and d1 == d2
    out = ship.unpack(d1, tmp_path / "p", expect=h1)
    assert ship.pack(out)[0] == h1
    assert (out / "challenge.yaml").read_text() == (BUNDLED / "off-by-one" / "challenge.yaml").read_text()
    with pytest.raises(ValueError, match="hash"):
        ship.unpack(d1 + b"x", tmp_path / "q", expect=h1)


@pytest.mark.parametrize("name,link", [("../evil", None), ("/abs", None), ("ok", "../../etc/passwd")])
def test_unpack_refuses_escapes(tmp_path, name, link):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        if link:
            info.type, info.linkname = tarfile.SYMTYPE, link
            tar.addfile(info)
        else:
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(ValueError, match="refusing|leaves"):
        ship.unpack(buf.getvalue(), tmp_path / "x")
    assert not (tmp_path / "x").exists() and not (tmp_path / "evil").exists()


def _ev(seq: int) -> Event:
    return Event(attempt="a-1", t=float(seq), kind="protocol.call", data={"op": "status"}, seq=seq)


async def test_flush_waits_for_the_acknowledgement():
    st = RelayStore()
    for i in (1, 2, 3):
        st.append(_ev(i))
    flushed = asyncio.ensure_future(st.flush())
    await asyncio.sleep(0)
    assert [e.seq for e, _ in st.take()] == [1, 2, 3]
    st.ack(2)
    await asyncio.sleep(0)
    assert not flushed.done()  # seq 3 is not committed on the command's machine yet
    st.ack(3)
    await asyncio.wait_for(flushed, 1)


async def test_flush_raises_when_the_command_machine_cannot_commit():
    st = RelayStore()
    st.append(_ev(1))
    flushed = asyncio.ensure_future(st.flush())
    await asyncio.sleep(0)
    st.ack(0, failed="StoreWriteError: disk full")
    with pytest.raises(RelayStoreError, match="disk full"):
        await asyncio.wait_for(flushed, 1)


def test_address_order(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "env:6379")
    assert resolve_address("flag:1", "plan:2") == "flag:1"
    assert resolve_address(None, "plan:2") == "plan:2"
    assert resolve_address(None, None) == "env:6379"
    monkeypatch.delenv("RAY_ADDRESS")
    assert resolve_address(None, None) is None
