"""Fixtures for the screen tests: settings in a temp dir, an adapter on a bus and a
manual clock per attempt, the app without its live refresh timer (tests call tick)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from arena.clock import AttemptClock, ManualTime  # noqa: E402
from arena.formats import rules_for  # noqa: E402

import scenarios as S  # noqa: E402


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


class Rig:
    """An adapter with attempts started on a bus, each with an AttemptClock on one ManualTime."""

    def __init__(self) -> None:
        from gauntlet_tui.engine import EngineAdapter

        self.time = ManualTime()
        self.adapter = EngineAdapter()
        self.bus = self.adapter.bus
        self.clocks: dict[str, AttemptClock] = {}

    def start(self, attempt: str, fmt: str, *, head_start: float = 0.0, **kw) -> AttemptClock:
        """``head_start``: attempt seconds already gone when the manual time reads 0."""
        S.start(self.bus, attempt, fmt, **kw)
        clock = AttemptClock(self.time, rules_for(fmt), S.LIMITS[fmt], elapsed_at_start=head_start)
        self.clocks[attempt] = clock
        self.adapter.attach_clock(attempt, clock.elapsed)
        return clock

    def app(self, **kw):
        from gauntlet_tui.app import GauntletApp

        kw.setdefault("live_refresh", False)
        return GauntletApp(self.adapter, **kw)


@pytest.fixture
def rig() -> Rig:
    return Rig()
