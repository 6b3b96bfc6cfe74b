"""`gauntlet leaderboard` ranks by results (issue 20 item 3): per weight class by the pairwise
rating with its interval, not by volume or by Elo. The issue's case: ten attempts at 70 and one
attempt at 95 on the same challenge that won all ten head-to-heads: the 95 ranks first, in
`--json` and in the text. A sweep's interval is one-sided, said so, its point not at an edge of
a two-sided interval; an agent with no same-class opponent is listed unrated with its mean total
and games; frontier attempts rank no one; a copied agent (same identity, another file) is one
row. Real judged event logs in a real SQLite store, the real CLI entry point."""

from __future__ import annotations

import json

import pytest
from test_judge_cli import _store

from eventkit import Attempt
from scenarios import iteration
from gauntlet_tui.cli import main


def _attempt(aid, passed, agent, challenge="lw-shared", cls="lightweight", spec=None):
    a = Attempt("standard", attempt=aid, agent=agent, challenge=challenge, weight_class=cls)
    if spec is not None:  # the agent file it ran from (a copy: another path, the same identity)
        a.events[0].data["agent_spec"] = spec
    iteration(a, passed)
    return a.finish()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("order") / "g.db"
    logs = [_attempt(f"a-stdy{i:04d}", 70, "steady") for i in range(10)]
    logs.append(_attempt("a-ace00001", 95, "ace"))
    logs.append(_attempt("a-mid00001", 80, "mid"))  # between the two: a mixed record
    logs.append(_attempt("a-lone0001", 60, "loner", "mw-alone", "middleweight"))  # no same-class opponent
    logs += [
        _attempt("a-fron0001", 90, "bench", "fr-0", "frontier"),
        _attempt("a-fron0002", 20, "ace", "fr-0", "frontier"),
        _attempt("a-fron0003", 99, "frontier-only", "fr-1", "frontier"),
        _attempt("a-fron0004", 10, "loner", "fr-1", "frontier"),
    ]
    logs += [
        _attempt("a-m41c0001", 85, "m41", "lw-copy", spec="/agents/a/agent.yaml"),
        _attempt("a-m41c0002", 85, "m41", "lw-copy", spec="/agents/b/renamed.yaml"),
        _attempt("a-othr0001", 50, "other", "lw-copy"),
    ]
    _store(path, logs)
    return path


@pytest.fixture(scope="module")
def board(db):
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["leaderboard", "--json", "--store", str(db)]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def text(db):
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["leaderboard", "--store", str(db)]) == 0
    return out.getvalue()


def _table(board, cls):
    [t] = [t for t in board["classes"] if t["weight_class"] == cls]
    return {r["agent"]: r for r in t["agents"]}, t


def _section(text, cls):
    """The lines of ``cls``'s table in the text leaderboard."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"{cls} ("))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].strip())
    return lines[start:end]


def _cells(line):
    return line.split()


def test_one_attempt_that_won_all_ten_head_to_heads_ranks_above_ten_at_70(board, text):
    light, _ = _table(board, "lightweight")
    ace, steady = light["ace"], light["steady"]
    assert steady["attempts"] == 10 and ace["attempts"] == 1
    assert ace["rank"] == 1 and ace["rating"] > light["mid"]["rating"] > steady["rating"]
    assert [r["agent"] for r in board["agents"]][:1] == ["ace"]  # the one list, ordered by the rating too
    rows = {r["agent"]: r for r in board["agents"]}
    assert rows["ace"]["rated"] and rows["ace"]["rank"] == 1  # the overall fit (issue 38): its games are lightweight
    assert rows["ace"]["rating"] == ace["rating"]
    # Elo (within the bracket) still favours volume; it is shown and it does not order
    assert steady["elo"] > ace["elo"]
    section = _section(text, "lightweight")
    assert "ranked by pairwise rating" in section[0]
    order = [_cells(ln)[1] for ln in section[2:]]
    assert order.index("ace") < order.index("mid") < order.index("steady")
    ace_line = _cells(section[2 + order.index("ace")])
    # issue 38: the rank column is the band (overlapping intervals share places); ace's starts at 1
    assert (
        ace_line[0] == ace["rank_band"] and ace_line[0].split("-")[0] == "1" and ace_line[2] == f"{ace['rating']:.0f}"
    )


def test_a_sweep_is_one_sided_and_its_point_is_inside(board, text):
    light, _ = _table(board, "lightweight")
    ace, steady, mid = light["ace"], light["steady"], light["mid"]
    assert ace["games"] == 11 and steady["games"] == 20  # every pair of attempts by different agents
    assert ace["one_sided"] == "lower" and ace["low"] < ace["rating"]  # the exact bound, below the point
    assert steady["one_sided"] == "upper" and steady["high"] > steady["rating"]  # every game lost
    assert mid["one_sided"] is None and mid["low"] < mid["rating"] < mid["high"]  # two-sided: interior
    lines = {_cells(ln)[1]: ln for ln in _section(text, "lightweight")[2:]}
    assert f">= {ace['low']:.0f} (one-sided)" in lines["ace"]
    assert f"<= {steady['high']:.0f} (one-sided)" in lines["steady"]
    assert f"{mid['low']:.0f}-{mid['high']:.0f}" in lines["mid"] and "one-sided" not in lines["mid"]


def test_an_agent_with_no_same_class_opponent_is_unrated_with_mean_total_and_games(board, text):
    middle, table = _table(board, "middleweight")
    loner = middle["loner"]
    assert table["ranked"] and set(middle) == {"loner"}
    assert not loner["rated"] and loner["rank"] is None and loner["rating"] is None
    assert loner["attempts"] == 1 and loner["games"] == 0 and loner["mean_total"] > 0
    row = next(r for r in board["agents"] if r["agent"] == "loner")
    assert not row["rated"] and row["rating"] is None and row["ratings"] == {}
    assert row["games"] == 2 and row["ranked_mean_total"] == loner["mean_total"]  # frontier not in the mean
    [line] = _section(text, "middleweight")[2:]
    assert _cells(line)[:4] == ["-", "loner", "unrated", "no"] and "no opponent" in line
    assert f"{loner['mean_total']:.1f}" in _cells(line)
    rated = [r["agent"] for r in board["agents"] if r["rated"]]
    unrated = [r["agent"] for r in board["agents"] if not r["rated"]]
    assert [r["agent"] for r in board["agents"]] == rated + unrated  # unrated after every rated agent


def test_frontier_attempts_rank_no_one(board, text):
    frontier, table = _table(board, "frontier")
    assert not table["ranked"] and set(frontier) == {"bench", "ace", "frontier-only", "loner"}
    assert all(r["rank"] is None and not r["rated"] for r in frontier.values())
    for r in board["agents"]:
        assert "frontier" not in r["ratings"]
    ace = next(r for r in board["agents"] if r["agent"] == "ace")
    assert ace["rating_games"] == 11  # the overall rating counts no frontier game (ace lost one)
    only = next(r for r in board["agents"] if r["agent"] == "frontier-only")
    assert not only["rated"] and only["ranked_mean_total"] is None  # 99 on frontier: no rank from it
    assert [r["agent"] for r in board["agents"]][-1] == "frontier-only"
    assert "frontier (x2.5): not ranked" in text
    assert all(_cells(ln)[0] == "-" for ln in _section(text, "frontier")[2:])


def test_a_copied_agent_is_one_row(board):
    names = [r["agent"] for r in board["agents"]]
    assert names.count("m41") == 1
    light, _ = _table(board, "lightweight")
    m41 = light["m41"]
    assert m41["attempts"] == 2 and m41["games"] == 2  # two games against "other", none against itself
    assert m41["one_sided"] == "lower"
    assert "/agents/" not in json.dumps(board)  # the file paths are specs, not agents
