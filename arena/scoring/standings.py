"""A round's standings: per challenge its attempts ranked by scorecard total, the winner,
and the agents' ratings over every finished attempt of the store (computed, not read
from the store's cached ratings, so they exist before any ``gauntlet leaderboard``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.scoring.load import leaderboard, open_store
from arena.scoring.scorecard import judge_attempt


@dataclass(frozen=True)
class Placing:
    attempt: str
    agent: str
    challenge: str
    status: str
    total: float
    submissions: int


@dataclass
class Standings:
    by_challenge: dict[str, list[Placing]] = field(default_factory=dict)  # best first
    ratings: list[dict] = field(default_factory=list)  # Leaderboard.agent_rows()

    def winner(self, challenge: str) -> Placing | None:
        rows = self.by_challenge.get(challenge) or []
        return rows[0] if rows and rows[0].status == "finished" else None


async def standings(path: Path, attempts: list[str]) -> Standings:
    """Judge ``attempts`` (any status; only ``finished`` ones can win) and rate the store."""
    out = Standings()
    st = await open_store(path)
    try:
        for aid in attempts:
            row = await st.get_attempt(aid)
            if row is None:
                continue
            events = await st.events(aid)
            card = judge_attempt(events)
            subs = sum(1 for e in events if getattr(e, "kind", None) == "submission.received")
            p = Placing(
                aid,
                card.agent or str(row.get("agent") or ""),
                card.challenge or str(row.get("challenge") or ""),
                str(row.get("status") or "running"),
                round(card.total, 1),
                subs,
            )
            out.by_challenge.setdefault(p.challenge, []).append(p)
    finally:
        await st.close()
    for rows in out.by_challenge.values():
        rows.sort(key=lambda p: (p.status != "finished", -p.total, p.agent))
    out.ratings = (await leaderboard(path, persist=False)).agent_rows()
    return out
