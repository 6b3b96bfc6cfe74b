"""The bundled challenges' four scripted agents, run as real attempts (local sandbox, real
judge runs, real store) on a manual clock and judged from the store, order as
reference > elite > standard > naive > null on each challenge. The null agent (added to a
copy of the package) submits the untouched starter once: it totals exactly the Objective
share of the starter's own score, with Process, Strategy and Integrity 0."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/attempt_kit.py

from attempt_kit import drive, open_arena, stored  # noqa: E402

from arena.challenge import bundled_challenges, load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena.scoring import judge_attempt  # noqa: E402

ORDER = ["reference", "elite", "standard", "naive", "null"]
BUNDLED = bundled_challenges()


def test_there_are_bundled_challenges():
    assert len(BUNDLED) >= 2, [str(p) for p in BUNDLED]


@pytest.mark.slow
@pytest.mark.parametrize("package", BUNDLED, ids=[p.name for p in BUNDLED])
async def test_scripted_agents_order(tmp_path, package):
    copy = tmp_path / package.name
    shutil.copytree(package, copy)
    (copy / "agents" / "null.yaml").write_text("# submits the untouched starter once\nsteps:\n  - submit\n")
    challenge = load_challenge(copy)
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, parallel=len(ORDER))  # drive() waits for every attempt to be ready
    try:
        attempts = [arena.attempt(challenge, f"scripted:{name}") for name in ORDER]
        statuses = await drive(arena, attempts, clock, step=5.0)
        assert statuses == ["finished"] * len(ORDER)
        cards = {name: judge_attempt(await stored(arena, a.id)) for name, a in zip(ORDER, attempts)}
    finally:
        await arena.close()
    totals = [cards[n].total for n in ORDER]
    shown = {n: (cards[n].total, cards[n].components, cards[n].trajectory) for n in ORDER}
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == len(ORDER), shown
    null = cards["null"]
    assert null.components["process"] == null.components["strategy"] == null.components["integrity"] == 0
    assert null.total == round(null.weights["objective"] * null.components["objective"], 1), shown
    assert "no_work" in {f.rule for f in null.flags}
