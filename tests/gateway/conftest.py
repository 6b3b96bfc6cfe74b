"""Fixtures of the gateway suite: a fake provider and a gateway pointed at it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from arena.gateway import Gateway
from gw_kit import PRICES, Events, gateway_env
from gw_upstream import FakeUpstream


@pytest.fixture
async def upstream():
    up = await FakeUpstream().start()
    yield up
    await up.aclose()


@pytest.fixture
async def gateway(upstream, tmp_path):
    root = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: unix socket paths
    gw = Gateway(root=root, env=gateway_env(upstream), prices=PRICES, transcript_dir=tmp_path / "transcripts")
    await gw.start()
    yield gw
    await gw.aclose()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def events():
    return Events()
