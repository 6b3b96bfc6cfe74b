"""Issue 38 items 3 and 5: one overall ranking and ties shown as ties.

- The one list (`gauntlet leaderboard`'s `agents`, its text, the TUI) is one pairwise fit over
  every head-to-head on the same challenge across the ranked classes: an agent that wins the
  contender and heavyweight challenges ranks above one that wins only the lightweight one,
  although every agent's own class is lightweight; class labels (and so the multipliers)
  do not change it.
- Agents whose 95% intervals overlap share a rank band ("1-2") in --json, text and TUI; equal
  results are never ranked by name (two agents with the same attempts share rank 1).
- A challenge's standings give equal totals the same rank and name no single winner.

Real judged event logs in a real SQLite store, the real CLI entry point and the real app."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest
from eventkit import Attempt
from scenarios import iteration
from test_judge_cli import _store

from arena.scoring.bands import competition_ranks, rank_bands
from arena.scoring.ratings import RatedAttempt, compute_ratings
from arena.scoring.standings import Placing, Standings, heat_lines
from gauntlet_tui.cli import main

# The case: everyone is lightweight; the elite edges the reference on the lightweight
# Sprint, the reference wins the contender and heavyweight challenges by far.
CASE = {
    ("obo", "lightweight"): {"reference": 96.7, "elite": 97.0, "standard": 84.5, "naive": 72.1},
    ("rl", "contender"): {"reference": 97.0, "elite": 80.0, "standard": 65.0, "naive": 50.0},
    ("ts", "heavyweight"): {"reference": 98.0, "elite": 60.0, "standard": 35.0, "naive": 20.0},
}


REPS = 2


def _case(relabel: dict[str, str] | None = None) -> list[RatedAttempt]:
    out, i = [], 0
    for rep in range(REPS):
        for (ch, cls), totals in CASE.items():
            for agent, total in totals.items():
                i += 1
                cls_ = (relabel or {}).get(cls, cls)
                out.append(RatedAttempt(f"a-{i:04d}", agent, ch, cls_, total - rep * 0.1, order=f"{i:04d}"))
    return out


def test_the_one_list_is_one_fit_across_classes():
    board = compute_ratings(_case())
    rows = board.agent_rows()
    assert {r["weight_class"] for r in rows} == {"lightweight"}  # nobody was promoted
    light = next(t for t in board.class_tables() if t["weight_class"] == "lightweight")
    assert light["agents"][0]["agent"] == "elite"  # the lightweight challenge alone: elite first
    assert [r["agent"] for r in rows] == ["reference", "elite", "standard", "naive"]
    # every head-to-head on each challenge, every class: 3 opponents x 3 challenges x REPS²
    assert all(r["rating_games"] == 3 * 3 * REPS * REPS for r in rows)
    # class labels decide promotion (multipliers), not order: relabelled, the same ratings
    again = compute_ratings(_case({"contender": "middleweight", "heavyweight": "lightweight"})).agent_rows()
    assert [(r["agent"], r["rating"], r["low"], r["high"]) for r in again] == [
        (r["agent"], r["rating"], r["low"], r["high"]) for r in rows
    ]


def test_band_rule():
    two = {"one_sided": None}
    rows = [
        {**two, "low": 1300, "high": 1500},
        {**two, "low": 1250, "high": 1350},  # overlaps the first
        {**two, "low": 900, "high": 1100},  # below both
        {"low": 800, "high": 1000, "one_sided": "lower"},  # a sweep: no upper bound, overlaps all
    ]
    assert rank_bands(rows) == [(1, 3), (1, 3), (3, 4), (1, 4)]
    assert competition_ranks([90.0, 80.0, 90.0, 70.0]) == [1, 3, 1, 4]


def _attempt(aid, passed, agent, challenge="lw-tie", cls="lightweight"):
    a = Attempt("standard", attempt=aid, agent=agent, challenge=challenge, weight_class=cls)
    iteration(a, passed)
    return a.finish()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """``zebra`` and ``aardvark`` tie (the same attempts on the same challenge), both above
    ``low``; two agents clearly separated on another challenge by many games."""
    path = tmp_path_factory.mktemp("bands") / "g.db"
    logs = []
    for i in range(3):
        logs += [
            _attempt(f"a-zebr{i:04d}", 90, "zebra"),
            _attempt(f"a-aard{i:04d}", 90, "aardvark"),
            _attempt(f"a-low0{i:04d}", 40, "low"),
        ]
    _store(path, logs)
    return path


def _cli(db, *extra):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["leaderboard", "--store", str(db), *extra]) == 0
    return out.getvalue()


def test_a_tie_shares_the_band_in_json_and_text(db):
    doc = json.loads(_cli(db, "--json"))
    rows = {r["agent"]: r for r in doc["agents"]}
    zebra, aardvark = rows["zebra"], rows["aardvark"]
    assert zebra["rating"] == aardvark["rating"]  # the intervals differ by bootstrap noise
    assert zebra["rank"] == aardvark["rank"] == 1  # never broken by name
    assert zebra["rank_band"] == aardvark["rank_band"] and zebra["rank_band"].startswith("1-")
    [light] = [t for t in doc["classes"] if t["weight_class"] == "lightweight"]
    cls_rows = {r["agent"]: r for r in light["agents"]}
    assert cls_rows["zebra"]["rank"] == cls_rows["aardvark"]["rank"] == 1
    assert cls_rows["zebra"]["rank_band"] == cls_rows["aardvark"]["rank_band"]
    text = _cli(db).splitlines()
    start = next(i for i, ln in enumerate(text) if ln.startswith("overall:"))
    overall = {ln.split()[1]: ln.split()[0] for ln in text[start + 3 : start + 6]}
    assert overall == {a: rows[a]["rank_band"] for a in ("zebra", "aardvark", "low")}
    # where the intervals separate the agents, the band is one place
    bands = {a: r["rank_band"] for a, r in rows.items()}
    for a, r in rows.items():
        best, worst = r["rank"], r["rank_worst"]
        assert bands[a] == (str(best) if best == worst else f"{best}-{worst}")


def test_standings_ties_share_the_rank_and_have_no_single_winner():
    rows = [
        Placing("a-1", "aardvark", "c", "finished", 90.0, 1),
        Placing("a-2", "zebra", "c", "finished", 90.0, 2),
        Placing("a-3", "low", "c", "finished", 40.0, 1),
        Placing("a-4", "gone", "c", "infra_error", 0.0, 1),
    ]
    s = Standings(by_challenge={"c": rows})
    assert s.winner("c") is None and [p.agent for p in s.winners("c")] == ["aardvark", "zebra"]
    lines = heat_lines(s, "h-1")[1:]
    assert [ln.split()[0] for ln in lines] == ["1", "1", "3", "-"]
    s1 = Standings(by_challenge={"c": rows[1:]})
    assert s1.winner("c") is not None and s1.winner("c").agent == "zebra"


async def test_tui_leaderboard_shows_the_bands(db, tmp_path, monkeypatch):
    from textual.widgets import DataTable

    from arena.pipeline.boards import leaderboard
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.standings import winner_line

    monkeypatch.setenv("GAUNTLET_CONFIG_DIR", str(tmp_path / "config"))
    want = {r["agent"]: r["rank_band"] for r in (await leaderboard(db, persist=False)).agent_rows()}
    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("b")
        for _ in range(200):
            if app.screen.query("#leaderboard-overall"):
                break
            await pilot.pause(0.05)
        table = app.screen.query_one("#leaderboard-overall", DataTable)
        got = {str(table.get_row_at(i)[1]): str(table.get_row_at(i)[0]) for i in range(table.row_count)}
    assert got == want and got["zebra"] == got["aardvark"]
    tie = [Placing("a-1", "aardvark", "c", "finished", 90.0, 1), Placing("a-2", "zebra", "c", "finished", 90.0, 1)]
    assert str(winner_line("c", tie)) == "c: tie: aardvark, zebra with 90.0"
