"""Reading what judging needs from the store (through ``store.Store``'s queries only)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.scoring.ratings import Leaderboard, RatedAttempt, compute_ratings, unrated_reason
from arena.scoring.scorecard import Scorecard, judge_attempt

if TYPE_CHECKING:
    from store import Store


class NotFound(LookupError):
    pass


async def open_store(path: Path) -> Store:
    from store import Store  # noqa: PLC0415

    return await Store.open(path)


async def attempt_events(path: Path, attempt: str) -> tuple[dict, list]:
    """(attempt row, events) of one stored attempt; ``NotFound`` when it is not there."""
    if not Path(path).exists():
        raise NotFound(f"attempt {attempt}: not found (no store at {path})")
    st = await open_store(path)
    try:
        row = await st.get_attempt(attempt)
        if row is None:
            raise NotFound(f"attempt {attempt}: not found in the store {path}")
        return row, await st.events(attempt)
    finally:
        await st.close()


def rated(row: dict, card: Scorecard) -> RatedAttempt:
    return RatedAttempt(
        attempt=card.attempt or row["id"],
        agent=card.agent or str(row.get("agent") or ""),
        challenge=card.challenge or str(row.get("challenge") or ""),
        weight_class=card.weight_class or str(row.get("weight_class") or ""),
        total=card.total,
        trajectory=tuple(card.trajectory),
        order=str(row.get("finished_at") or row.get("started_at") or ""),
        usage=(int(card.usage.get("tokens") or 0), int(card.usage.get("calls") or 0), card.usage.get("cost_usd")),
        unsandboxed=any(f.rule == "unsandboxed_agent" for f in card.flags),
    )


Marker = Callable[[list[dict[str, Any]]], set[str]]  # store rows -> ids of unverified-calibration attempts


async def leaderboard(
    path: Path, *, persist: bool = True, unverified: Marker | None = None, heat: str | None = None
) -> Leaderboard:
    """Judge every finished attempt (status ``finished``) and rate them in finish order.
    With ``persist`` the ratings are written back to the store's agents/challenges tables.
    ``unverified`` (``arena.pipeline.boards`` passes it) names the attempts that ran under an
    unverified publication, so that their agents' rows say so. A hung or infra-error attempt
    is never rated (``ratings.unrated_reason``): it is listed in ``Leaderboard.unrated``.
    ``heat``: only that heat's attempts (the ``run`` column); a heat's board is never persisted."""
    if not Path(path).exists():
        return compute_ratings([])
    st = await open_store(path)
    try:
        rows, games, unrated = [], [], []
        for row in await st.all_finished_attempts():
            if row.get("status") not in ("finished", "infra_error") or (heat is not None and row.get("run") != heat):
                continue
            events = await st.events(row["id"])
            why = unrated_reason(row, (e.kind for e in events))
            if why is not None:
                unrated.append(_unrated_row(row, why))
            elif row.get("status") == "finished":
                rows.append(row)
                games.append(rated(row, judge_attempt(events)))
        board = compute_ratings(games, unverified(rows) if unverified is not None else frozenset())
        board.unrated = unrated
        if persist and heat is None:
            for a in board.agents.values():
                await st.set_rating(
                    "agents", a.agent, round(a.elo, 1), games=a.games, weight_class=a.state.weight_class
                )
            for cid, ch in board.challenges.items():
                await st.set_rating("challenges", cid, round(ch["elo"], 1), games=ch["games"])
        return board
    finally:
        await st.close()


def _unrated_row(row: dict[str, Any], flag: str) -> dict[str, Any]:
    return {
        "attempt": row["id"],
        "agent": str(row.get("agent") or ""),
        "challenge": str(row.get("challenge") or ""),
        "status": row.get("status"),
        "reason": row.get("reason"),
        "heat": row.get("run"),
        "flag": flag,
        "rated": False,
    }
