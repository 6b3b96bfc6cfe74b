"""Ratings with no floor (issue 12, item 6): agents rated against each other on the same
challenge, per weight class, with bootstrap intervals; shown by `gauntlet leaderboard --json`."""

from __future__ import annotations

import json

from test_judge_cli import _attempt, _store

from arena.scoring.pairwise import class_ratings, games
from arena.scoring.ratings import RatedAttempt, compute_ratings
from gauntlet_tui.cli import main


def _rated(aid, agent, challenge, total, cls="lightweight"):
    return RatedAttempt(attempt=aid, agent=agent, challenge=challenge, weight_class=cls, total=total)


def test_games_are_pairs_of_agents_on_one_challenge():
    xs = [
        _rated("a1", "x", "c1", 80),
        _rated("a2", "y", "c1", 60),
        _rated("a3", "x", "c2", 50),
        _rated("a4", "x", "c1", 70),
    ]
    # a1 (80) beats a2 (60), a2 loses to a4 (70); a3 has no opponent on c2
    assert sorted(games(xs)) == [("x", "y", 1.0), ("y", "x", 0.0)]


def test_floor_does_not_carry():
    """The issue's case: 31.2 ten times on a heavyweight vs 95 ten times on a lightweight
    out-rated the 95 under Elo-against-the-challenge. Pairwise, each is rated in its own
    class against its own opponents: the 31.2 agent loses to the heavyweight's better agent."""
    atts = []
    for i in range(10):
        atts += [
            _rated(f"h{i}", "floor", f"hw{i}", 31.2, "heavyweight"),
            _rated(f"h2{i}", "strong-hw", f"hw{i}", 55.0, "heavyweight"),
            _rated(f"l{i}", "ace", f"lw{i}", 95.0),
            _rated(f"l2{i}", "ok", f"lw{i}", 70.0),
        ]
    board = compute_ratings(atts)
    rows = {r["agent"]: r for r in board.agent_rows()}
    assert set(rows["floor"]["ratings"]) == {"heavyweight"}
    floor, ace = rows["floor"]["ratings"]["heavyweight"], rows["ace"]["ratings"]["lightweight"]
    assert floor["rating"] < 1000 < ace["rating"]
    assert floor["low"] <= floor["rating"] <= floor["high"]
    assert floor["multiplier"] == 2.0 and ace["multiplier"] == 1.0


def test_interval_narrows_with_more_games_and_is_deterministic():
    def board(n):
        xs = []
        for i in range(n):
            xs += [_rated(f"a{i}", "x", f"c{i}", 70 + (i % 3) * 10), _rated(f"b{i}", "y", f"c{i}", 75.0)]
        return class_ratings(xs)

    few, many = board(4), board(40)
    width = lambda r: r["x"]["high"] - r["x"]["low"]  # noqa: E731
    assert width(many) < width(few)
    assert board(40) == many  # fixed bootstrap seed: same attempts, same interval


def test_leaderboard_json_gives_rating_with_interval_per_class(tmp_path, capsys):
    path = tmp_path / "lb.db"
    atts = []
    for i in range(3):
        atts.append(_attempt(f"a-1000000{i}", [80, 95], agent="scripted:elite", challenge=f"lw{i}"))
        atts.append(_attempt(f"a-2000000{i}", [20, 30], agent="scripted:naive", challenge=f"lw{i}"))
    atts.append(_attempt("a-30000000", [50, 60], agent="scripted:elite", challenge="mw0", weight_class="middleweight"))
    atts.append(
        _attempt("a-30000001", [60, 70], agent="scripted:standard", challenge="mw0", weight_class="middleweight")
    )
    _store(path, atts)
    assert main(["leaderboard", "--json", "--store", str(path)]) == 0
    rows = {r["agent"]: r for r in json.loads(capsys.readouterr().out)["agents"]}
    elite = rows["scripted:elite"]["ratings"]
    assert set(elite) == {"lightweight", "middleweight"}
    for r in elite.values():
        assert {"rating", "low", "high", "games", "multiplier"} <= set(r)
        assert r["low"] <= r["rating"] <= r["high"]
    assert elite["lightweight"]["rating"] > rows["scripted:naive"]["ratings"]["lightweight"]["rating"]
    assert elite["middleweight"]["rating"] < rows["scripted:standard"]["ratings"]["middleweight"]["rating"]
    assert rows["scripted:elite"]["usage"] == {"tokens": 0, "calls": 0, "cost_usd": None}
    assert rows["scripted:elite"]["flags"] == []
