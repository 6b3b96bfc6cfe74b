"""The leaderboard and a round's standings with the publications' marks: the attempts that
ran under a publication whose calibration was not verified (``--unverified-calibration``,
``published.unverified_attempts``) are counted in their agents' rows and marked in the
standings (issue 20). ``arena.scoring`` rates and ranks; this layer knows the publications."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.pipeline.published import unverified_attempts
from arena.scoring.load import Marker
from arena.scoring.load import leaderboard as _leaderboard
from arena.scoring.ratings import Leaderboard
from arena.scoring.standings import Standings
from arena.scoring.standings import standings as _standings


def _marker(store: Path) -> Marker:
    def mark(rows: list[dict[str, Any]]) -> set[str]:
        return unverified_attempts(Path(store), rows)

    return mark


async def leaderboard(store: Path, *, persist: bool = True, heat: str | None = None) -> Leaderboard:
    return await _leaderboard(store, persist=persist, unverified=_marker(store), heat=heat)


async def standings(store: Path, attempts: list[str], *, heat: str | None = None) -> Standings:
    return await _standings(store, attempts, unverified=_marker(store), heat=heat)


__all__ = ["leaderboard", "standings"]
