"""A round's standings: per challenge its attempts ranked by scorecard total, the winner,
and the agents' ratings over every finished attempt of the store (computed, not read
from the store's cached ratings, so they exist before any ``gauntlet leaderboard``): per
weight class the pairwise rating with its interval (``Leaderboard.class_tables``), an agent
with no opponent there unrated with its mean total, frontier never ranked (issue 20)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from arena.scoring.bands import competition_ranks
from arena.scoring.load import Marker, leaderboard, open_store
from arena.scoring.ratings import unrated_reason
from arena.scoring.scorecard import judge_attempt
from arena.text import printable


@dataclass(frozen=True)
class Placing:
    attempt: str
    agent: str
    challenge: str
    status: str
    total: float
    submissions: int
    unverified: bool = False  # ran under a publication whose calibration was not verified
    unrated: str | None = None  # "hung" / "infra_error": never a rated game, never a winner

    @property
    def placed(self) -> bool:
        """Ranked among its challenge's attempts: finished and rated."""
        return self.status == "finished" and self.unrated is None


@dataclass
class Standings:
    by_challenge: dict[str, list[Placing]] = field(default_factory=dict)  # best first
    ratings: list[dict] = field(default_factory=list)  # Leaderboard.agent_rows()
    classes: list[dict] = field(default_factory=list)  # Leaderboard.class_tables(): what is shown

    def winners(self, challenge: str) -> list[Placing]:
        """The placed attempts with the challenge's best total: more than one is a tie (issue
        38: ties are shown as ties, never broken by name)."""
        rows = self.by_challenge.get(challenge) or []
        return [p for p, r in zip(rows, placing_ranks(rows)) if r == 1]

    def winner(self, challenge: str) -> Placing | None:
        """The one winner; None when no attempt placed or when the best total is shared."""
        best = self.winners(challenge)
        return best[0] if len(best) == 1 else None


def placing_ranks(rows: list[Any], placed: Callable[[Any], bool] = lambda p: bool(p.placed)) -> list[int | None]:
    """Each row's rank on its challenge: 1 + the placed rows with a higher total, so equal
    totals share a rank (``1, 1, 3``); None for a row that is not placed."""
    ok = [placed(p) for p in rows]
    ranks = iter(competition_ranks([p.total for p, k in zip(rows, ok) if k]))
    return [next(ranks) if k else None for k in ok]


async def standings(
    path: Path, attempts: list[str], *, unverified: Marker | None = None, heat: str | None = None
) -> Standings:
    """Judge ``attempts`` (any status; only ``finished`` rated ones can win) and rate the store
    (``heat``: rate only that heat's attempts). ``unverified`` marks the attempts that ran
    under an unverified publication (``arena.pipeline.boards`` passes it)."""
    out = Standings()
    st = await open_store(path)
    try:
        rows = [row for aid in attempts if (row := await st.get_attempt(aid)) is not None]
        marked = unverified(rows) if unverified is not None else set()
        for row in rows:
            aid = str(row["id"])
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
                aid in marked,
                unrated_reason(row, (e.kind for e in events)),
            )
            out.by_challenge.setdefault(p.challenge, []).append(p)
    finally:
        await st.close()
    for placings in out.by_challenge.values():
        placings.sort(key=lambda p: (not p.placed, p.status != "finished", -p.total, p.agent))
    board = await leaderboard(path, persist=False, unverified=unverified, heat=heat)
    out.ratings, out.classes = board.agent_rows(), board.class_tables()
    return out


def heat_lines(s: Standings, heat: str | None) -> list[str]:
    """A heat's standings as text (``gauntlet arena|run --headless`` end with them): the
    line ``Standings — heat ID``, then one line per attempt: its rank on its challenge
    (equal totals share it; ``-`` when not placed), attempt id, agent, challenge and ``total`` as ``gauntlet
    judge`` gives it; a hung or infra-error attempt shows ``total -`` and its flag, an
    attempt that did not finish its status."""
    rows = []
    for challenge in sorted(s.by_challenge):
        placings = s.by_challenge[challenge]
        for p, rank in zip(placings, placing_ranks(placings)):
            flags = [p.unrated or ("" if p.status == "finished" else p.status)]
            flags.append("(unverified calibration)" if p.unverified else "")
            rows.append(
                [
                    "-" if rank is None else str(rank),
                    p.attempt,
                    printable(p.agent, newlines=False),
                    printable(challenge, newlines=False),
                    "total " + ("-" if p.unrated else f"{p.total:g}"),
                    " ".join(f for f in flags if f),
                ]
            )
    n = len(rows)
    head = f"Standings — heat {heat or '(none)'}: {n} contestant{'s' if n != 1 else ''}"
    if not rows:
        return [head]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [head, *("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)]
