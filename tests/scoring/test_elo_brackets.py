"""Elo per bracket (seed 002: "ELO ≥ X (within bracket)"), and the figures docs/judging.md
quotes for it ("a steady 70 on new middleweight challenges settles near 1300 ... a steady 55
(the class median) below 1200"), read from the doc and compared with compute_ratings."""

from __future__ import annotations

import re
from pathlib import Path

from arena.scoring.ratings import CHALLENGE_START, RatedAttempt, compute_ratings

DOC = Path(__file__).resolve().parents[2] / "docs" / "judging.md"


def _steady(total: float, n: int = 200, cls: str = "middleweight") -> dict[str, float]:
    xs = [RatedAttempt(f"a{i:04}", "agent", f"c{i}", cls, total, order=f"{i:04}") for i in range(n)]
    return compute_ratings(xs).agents["agent"].elos


def test_the_docs_elo_figures_match_the_code():
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    m = re.search(r"a steady 70 on new middleweight challenges settles near (\d+) \(above the (\d+) gate", text)
    assert m, "docs/judging.md no longer states the steady-70 figure this test keeps true"
    near, gate = int(m.group(1)), int(m.group(2))
    assert re.search(rf"a steady 55 \(the class median\) below {gate}", text)
    seventy, median = _steady(70.0)["middleweight"], _steady(55.0)["middleweight"]
    assert abs(seventy - near) <= 25 and seventy > gate, seventy
    assert median < gate, median


def test_an_attempt_moves_only_its_challenges_bracket():
    xs = [
        RatedAttempt("a1", "agent", "light", "lightweight", 90.0, order="1"),
        RatedAttempt("a2", "agent", "middle", "middleweight", 20.0, order="2"),
    ]
    row = compute_ratings(xs).agents["agent"]
    assert row.elos["lightweight"] > CHALLENGE_START["lightweight"]  # a 90 against an even challenge
    assert row.elos["middleweight"] < CHALLENGE_START["middleweight"]  # entered at 1150, lost ground
    assert row.state.weight_class == "lightweight" and row.elo == row.elos["lightweight"]
    assert set(row.elos) == {"lightweight", "middleweight"}  # no bracket it did not play
