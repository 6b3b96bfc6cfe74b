"""Pairwise ratings per weight class (``pairwise.py``: agents against agents, no floor)
and, kept for the weight-class gates, Elo for agents and challenges, updated from judged attempts in finish order, with seed
002's weight classes on top. Pure: ``compute_ratings(attempts)`` gives the same
leaderboard for the same attempts.

Model (docs/judging.md): each attempt is a game between the agent and the challenge.
Expected score ``E = 1 / (1 + 10 ** ((R_challenge - R_agent) / 400))``; actual score
``S = total / 100`` (continuous, so a 70 against an even challenge gains what a 30 loses).
Agent: ``R += K_AGENT × multiplier(class) × (S − E)``; challenge: ``R += K_CHALLENGE × (E − S)``.
An agent's Elo is kept per bracket (seed 002: "ELO ≥ X within the bracket"): an attempt moves
its Elo in the bracket of the challenge's class, and an agent enters a bracket at that class's
challenge start rating. Elo only decides promotion and relegation; the leaderboard is ordered
by the pairwise ratings (issue 20) — the one list by one fit over every ranked class (issue
38), each class's table by that class's —, with rank bands where intervals overlap
(``bands.py``), and frontier attempts rank no one (seed 002 principle 6).
Challenges start at their class's start rating, spaced so that the seed's
Elo gates mean something (a steady 70 on middleweight challenges settles near 1300,
above the 1200 gate; a class median settles below it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from arena import events as ev
from arena.formats import WEIGHT_CLASSES
from arena.scoring.bands import band_text, rank_bands
from arena.scoring.pairwise import class_ratings
from arena.scoring.weight_classes import (
    MULTIPLIERS,
    AgentClassState,
    ClassAttempt,
    apply_attempt,
    normalize_class,
    percentile_rank,
)

AGENT_START = 1000.0
CHALLENGE_START = {
    "lightweight": 1000.0,
    "middleweight": 1150.0,
    "contender": 1550.0,
    "heavyweight": 1950.0,
    "frontier": 2350.0,
}
K_AGENT = 32.0
K_CHALLENGE = 16.0


@dataclass(frozen=True)
class RatedAttempt:
    attempt: str
    agent: str
    challenge: str
    weight_class: str
    total: float
    trajectory: tuple[float, ...] = ()
    order: str = ""  # finish time (ISO) — attempts are applied in (order, attempt) order
    usage: tuple[int, int, float | None] = (0, 0, None)  # tokens, calls, cost_usd (scorecard)
    unsandboxed: bool = False  # the scorecard's unsandboxed_agent flag


HUNG_REASON = "agent hung"  # attempt.finished's reason when the watchdog ended the agent


def unrated_reason(row: dict[str, Any], kinds: Iterable[str]) -> str | None:
    """Why a stored attempt is never a rated game (issue 34): ``"infra_error"`` (its status)
    or ``"hung"`` (ended as hung: reason "agent hung", or an ``agent.hung`` event among
    ``kinds``, its events' kinds); None when nothing keeps it out. Such attempts are listed
    and flagged (``Leaderboard.unrated``, the standings), never rated: an agent killed by
    the watchdog or by the infrastructure did not play the challenge."""
    if row.get("status") == "infra_error":
        return "infra_error"
    if str(row.get("reason") or "").startswith(HUNG_REASON) or ev.AGENT_HUNG in set(kinds):
        return "hung"
    return None


def expected(r_agent: float, r_challenge: float) -> float:
    return 1.0 / (1.0 + 10 ** ((r_challenge - r_agent) / 400.0))


RANKED = tuple(c for c in WEIGHT_CLASSES if c != "frontier")  # seed 002 principle 6: frontier never ranks


@dataclass
class AgentRow:
    agent: str
    games: int = 0
    elos: dict[str, float] = field(default_factory=dict)  # Elo within each bracket (seed 002)
    bracket_games: dict[str, int] = field(default_factory=dict)
    state: AgentClassState = field(default_factory=AgentClassState)
    totals: list[float] = field(default_factory=list)
    scored: list[tuple[str, float]] = field(default_factory=list)  # (class, total)
    tokens: int = 0
    calls: int = 0
    cost_usd: float | None = None
    unsandboxed: int = 0  # attempts run on the host
    unverified: dict[str, int] = field(default_factory=dict)  # class -> attempts under an unverified publication

    def bracket_elo(self, cls: str) -> float:
        """The agent's Elo within ``cls``'s bracket: it enters a bracket even with that
        class's challenges (their start rating)."""
        return self.elos.get(cls, CHALLENGE_START[cls])

    @property
    def elo(self) -> float:
        """The Elo of the bracket the agent competes in (its weight class): what promotion
        and relegation read."""
        return self.bracket_elo(self.state.weight_class)

    def class_totals(self, cls: str) -> list[float]:
        return [t for c, t in self.scored if c == cls]


@dataclass
class Leaderboard:
    agents: dict[str, AgentRow]
    challenges: dict[str, dict]
    pools: dict[str, list[float]]
    pairwise: dict[str, dict[str, dict]] = field(default_factory=dict)  # class -> agent -> rating
    # agent -> rating over every head-to-head of the ranked classes (the one list, issue 38)
    overall: dict[str, dict] = field(default_factory=dict)
    # attempts kept out of every rating (``unrated_reason``): listed, flagged, never a game
    unrated: list[dict[str, Any]] = field(default_factory=list)

    def agent_rows(self) -> list[dict]:
        rows: list[dict[str, Any]] = []
        for a in self.agents.values():
            pct = [percentile_rank(t, self.pools[c]) for c, t in a.scored]
            weighted = [p * MULTIPLIERS[c] for p, (c, _) in zip(pct, a.scored)]
            st = a.state
            rows.append(
                {
                    "agent": a.agent,
                    "elo": round(a.elo, 1),  # within the bracket of its weight class
                    "elo_by_class": {
                        c: {"elo": round(a.bracket_elo(c), 1), "games": n} for c, n in sorted(a.bracket_games.items())
                    },
                    **self._order_fields(a),
                    "games": a.games,
                    "weight_class": st.weight_class,
                    "status": (
                        f"under review ({len(st.matches)}/3 relegation matches)" if st.under_review else "active"
                    ),
                    "under_review": st.under_review,
                    "mean_total": round(sum(a.totals) / len(a.totals), 1) if a.totals else 0.0,
                    "mean_percentile": round(sum(pct) / len(pct), 1) if pct else 0.0,
                    "weighted_percentile": round(sum(weighted) / len(weighted), 1) if weighted else 0.0,
                    "history": list(st.log),
                    # pairwise Bradley-Terry per weight class (arena/scoring/pairwise.py): no floor
                    "ratings": {
                        c: {**r[a.agent], "multiplier": MULTIPLIERS[c]}
                        for c, r in sorted(self.pairwise.items())
                        if a.agent in r
                    },
                    "usage": {
                        "tokens": a.tokens,
                        "calls": a.calls,
                        "cost_usd": None if a.cost_usd is None else round(a.cost_usd, 6),
                    },
                    "unverified_attempts": sum(a.unverified.values()),
                    "unrated_attempts": self._unrated_of(a.agent),
                    "flags": (
                        [
                            {
                                "rule": "unsandboxed_agent",
                                "detail": f"{a.unsandboxed} attempt(s) ran on the host, outside any sandbox",
                            }
                        ]
                        if a.unsandboxed
                        else []
                    ),
                }
            )
        rows.sort(key=_order)
        _set_bands([r for r in rows if r["rated"]])
        return rows

    def _unrated_of(self, agent: str) -> dict[str, int]:
        """The agent's attempts kept out of the ratings, by flag (``{"hung": 1}``)."""
        out: dict[str, int] = {}
        for u in self.unrated:
            if u["agent"] == agent:
                out[u["flag"]] = out.get(u["flag"], 0) + 1
        return out

    def _order_fields(self, a: AgentRow) -> dict[str, Any]:
        r = self.overall.get(a.agent)
        ranked = [t for c, t in a.scored if c in RANKED]
        return {
            "rated": r is not None,
            "rank": None,  # the best place of the band (``_set_bands``)
            "rank_band": None,
            "rank_worst": None,
            "rating": None if r is None else r["rating"],
            "low": None if r is None else r["low"],
            "high": None if r is None else r["high"],
            "one_sided": None if r is None else r.get("one_sided"),
            "rating_games": 0 if r is None else r["games"],
            "ranked_mean_total": round(sum(ranked) / len(ranked), 1) if ranked else None,
        }

    def class_tables(self) -> list[dict]:
        """Per weight class with attempts: its agents ordered by their pairwise rating (with its
        interval); then, unrated, the agents with no opponent there (mean total and games
        shown, no rank). Frontier is shown and never ranked (seed 002 principle 6)."""
        out = []
        for cls in WEIGHT_CLASSES:
            present = [a for a in self.agents.values() if a.class_totals(cls)]
            if not present:
                continue
            ratings = self.pairwise.get(cls, {})
            rows: list[dict[str, Any]] = []
            for a in present:
                totals, r = a.class_totals(cls), ratings.get(a.agent)
                rows.append(
                    {
                        "agent": a.agent,
                        "rated": r is not None,
                        "rating": None if r is None else r["rating"],
                        "low": None if r is None else r["low"],
                        "high": None if r is None else r["high"],
                        "one_sided": None if r is None else r.get("one_sided"),
                        "games": 0 if r is None else r["games"],  # pairwise games
                        "attempts": len(totals),
                        "mean_total": round(sum(totals) / len(totals), 1),
                        "elo": round(a.bracket_elo(cls), 1),
                        "weight_class": a.state.weight_class,
                        "under_review": a.state.under_review,
                        "unverified_attempts": a.unverified.get(cls, 0),
                    }
                )
            rows.sort(key=lambda x: (not x["rated"], -(x["rating"] or 0.0), -x["mean_total"], x["agent"]))
            for x in rows:
                x["rank"] = x["rank_band"] = x["rank_worst"] = None
            _set_bands([x for x in rows if x["rated"]] if cls in RANKED else [])
            out.append(
                {
                    "weight_class": cls,
                    "multiplier": MULTIPLIERS[cls],
                    "ranked": cls in RANKED,
                    "agents": rows,
                }
            )
        return out

    def challenge_rows(self) -> list[dict]:
        return sorted(
            ({"challenge": k, **v, "elo": round(v["elo"], 1)} for k, v in self.challenges.items()),
            key=lambda r: (-r["elo"], r["challenge"]),
        )

    def as_dict(self) -> dict:
        return {
            "agents": self.agent_rows(),
            "classes": self.class_tables(),
            "challenges": self.challenge_rows(),
            "unrated": [dict(u) for u in self.unrated],
        }


def _order(r: dict) -> tuple:
    """The one list (issue 38): rated agents by their overall pairwise rating — one fit over
    every head-to-head on the same challenge, across the ranked classes (class multipliers
    decide promotion, not order) —, then unrated ones by their mean total outside frontier.
    Elo is not an ordering key (issue 20). Agents listed in name order among equal ratings
    share their rank band (``_set_bands``): the name orders the lines, never the rank."""
    if r["rated"]:
        return (0, -r["rating"], r["agent"])
    return (1, -(r["ranked_mean_total"] or 0.0), r["agent"])


def _set_bands(rows: list[dict[str, Any]]) -> None:
    """``rank`` (the band's best place) and ``rank_band`` (``"1-3"``, or ``"2"``) of rated
    rows: agents whose 95% intervals overlap share places (``bands.rank_bands``)."""
    for r, (best, worst) in zip(rows, rank_bands(rows)):
        r["rank"], r["rank_band"], r["rank_worst"] = best, band_text(best, worst), worst


def compute_ratings(attempts: list[RatedAttempt], unverified: Collection[str] = frozenset()) -> Leaderboard:
    """``unverified``: ids of attempts that ran under a publication whose calibration was not
    verified (``arena.pipeline.published.unverified_attempts``); counted per agent and class so
    that their rows say so (issue 20). They are rated like any other attempt."""
    agents: dict[str, AgentRow] = {}
    challenges: dict[str, dict] = {}
    pools: dict[str, list[float]] = {c: [] for c in MULTIPLIERS}
    for at in sorted(attempts, key=lambda x: (x.order, x.attempt)):
        cls = normalize_class(at.weight_class)
        row = agents.setdefault(at.agent, AgentRow(at.agent))
        ch = challenges.setdefault(at.challenge, {"elo": CHALLENGE_START[cls], "games": 0, "weight_class": cls})
        elo = row.bracket_elo(cls)
        e = expected(elo, ch["elo"])
        s = max(0.0, min(1.0, at.total / 100.0))
        row.elos[cls] = elo + K_AGENT * MULTIPLIERS[cls] * (s - e)
        ch["elo"] += K_CHALLENGE * (e - s)
        row.games += 1
        row.bracket_games[cls] = row.bracket_games.get(cls, 0) + 1
        ch["games"] += 1
        pools[cls].append(at.total)
        row.totals.append(at.total)
        row.scored.append((cls, at.total))
        tokens, calls, cost = at.usage
        row.tokens += tokens
        row.calls += calls
        if cost is not None:
            row.cost_usd = (row.cost_usd or 0.0) + cost
        row.unsandboxed += at.unsandboxed
        if at.attempt in unverified:
            row.unverified[cls] = row.unverified.get(cls, 0) + 1
        traj = at.trajectory
        improved = any(traj[i] > traj[i - 1] for i in range(1, len(traj)))
        apply_attempt(
            row.state, cls, ClassAttempt(at.challenge, at.total, improved), row.elos[cls], pools[cls], label=at.attempt
        )
    by_class: dict[str, list[RatedAttempt]] = {}
    for at in attempts:
        by_class.setdefault(normalize_class(at.weight_class), []).append(at)
    pairwise = {c: r for c, xs in by_class.items() if c in RANKED and (r := class_ratings(xs))}
    overall = class_ratings([at for c, xs in by_class.items() if c in RANKED for at in xs])
    return Leaderboard(agents=agents, challenges=challenges, pools=pools, pairwise=pairwise, overall=overall)
