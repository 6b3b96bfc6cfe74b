"""Fixtures for the screen tests: settings in a temp dir, an adapter on a bus and a
manual clock per attempt, the app without its live refresh timer (tests call tick)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tui_scenarios import Rig  # noqa: E402


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def rig() -> Rig:
    return Rig()
