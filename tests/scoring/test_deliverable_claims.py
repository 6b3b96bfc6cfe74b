"""Issue 38, item 1: offline, a file deliverable earns its share only for claims that match
the submission (arena/judge/verdict/claims.py), and the work credit is computed on the
Objective without deliverable shares.

The low-effort agent is ``tests/agents/filler-prose.yaml``: it changes no code and writes one
empty sentence per function name into NOTES.md and DESIGN.md. Before issue 38 it totalled
49.3 on off-by-one, where the null agent (the untouched starter, submitted) totals 20.0."""

from __future__ import annotations

import shutil

import pytest
from agentfile_kit import BUNDLED, attempt_for, expected_tests, judged, package_with_agents, replay
from eventkit import Attempt, make_result, passing

from arena.judge.verdict.claims import Work, index_tree, starter_files
from arena.judge.verdict.substance import substance_score
from arena.scoring import judge_attempt

OFF_BY_ONE = BUNDLED / "off-by-one"
TERMS = ["_find_runs", "_run_end", "test_reverse_is_ascending_backwards"]


@pytest.mark.parametrize("challenge", ["off-by-one", "task-store"])
def test_filler_prose_totals_what_the_null_agent_totals(tmp_path, challenge):
    pkg = package_with_agents(tmp_path, challenge)
    (sub,) = replay(pkg, "filler-prose", tmp_path)
    names = sorted(e.func for e in expected_tests(pkg))
    outcomes = {n: i % 2 == 0 for i, n in enumerate(names)}  # the starter's; no code changed
    starter = judged(pkg, pkg / "starter", tmp_path / "st", outcomes)
    filler = judged(pkg, sub.workspace, tmp_path / "fi", outcomes)
    files = [d for d in filler["deliverables"] if d.endswith(".md")]
    assert files and all(filler["deliverables"][d] == 0.0 for d in files), filler["deliverables"]

    def total(result: dict) -> tuple[float, dict]:
        a = attempt_for(pkg, starter)
        a.submit(result=result, at=sub.t, files=["NOTES.md", "DESIGN.md"])
        card = judge_attempt(a.finish())
        return card.total, {"components": card.components, "work": card.work}

    null, shown = total(starter)
    got, seen = total(filler)
    assert got == null, (seen, shown)
    assert seen["work"]["credit"] == 0.0


def _work(tmp_path, *overlays: str, tests=()) -> Work:
    ws = tmp_path / "ws"
    shutil.copytree(OFF_BY_ONE / "starter", ws)
    for o in overlays:
        shutil.copytree(OFF_BY_ONE / "agents" / o, ws, dirs_exist_ok=True)
    ours = index_tree(starter_files(ws))
    return Work.between(index_tree(starter_files(OFF_BY_ONE / "starter")), ours, tests)


def test_claims_that_match_the_work_keep_their_share(tmp_path):
    """The reference fixed both functions and the wrong test its notes name: full share. The
    naive agent's notes name `_find_runs`, which it never changed: nothing."""
    briefing = (OFF_BY_ONE / "briefing.md").read_text()
    ref = _work(tmp_path / "r", "reference/1", "reference/2", "reference/3")
    notes = (OFF_BY_ONE / "agents" / "reference" / "3" / "NOTES.md").read_text()
    assert substance_score(notes, TERMS, briefing, ref) == 1.0
    naive = _work(tmp_path / "n", "naive/1", "naive/2")
    notes = (OFF_BY_ONE / "agents" / "naive" / "2" / "NOTES.md").read_text()
    assert substance_score(notes, TERMS, briefing) == pytest.approx(1 / 3)  # said, not done
    assert substance_score(notes, TERMS, briefing, naive) == 0.0


def test_a_comment_is_no_change_and_prose_words_are_not_claims(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(OFF_BY_ONE / "starter", ws)
    src = ws / "sorter.py"
    src.write_text(src.read_text().replace("def _find_runs(", "# looked at\ndef _find_runs(") + "\n# reviewed\n")
    w = Work.between(index_tree(starter_files(OFF_BY_ONE / "starter")), index_tree(starter_files(ws)), [])
    assert not w.code_changed and w.claim("_find_runs") is False and w.claim("sorter.py") is False
    # without terms: code-looking words are claims, a plain word only when it holds ("sort"
    # in a sentence may be English)
    assert w.claims_in(["We sort the items and then `median` picks one."]) == {"median": False}
    assert substance_score("We sort the items and then `median` picks one of them.", [], "", w) == 0.0
    src.write_text(src.read_text().replace("def median(", "def median_(", 1))
    w = Work.between(index_tree(starter_files(OFF_BY_ONE / "starter")), index_tree(starter_files(ws)), [])
    assert w.claims_in(["The median was wrong, sort too and `_merge` as well."]) == {"median": True, "_merge": False}


def test_work_credit_ignores_the_deliverable_share():
    """A final whose tests are the starter's and whose notes earned their whole share closed
    none of the gap: Process, Strategy and Integrity count 0."""
    deliverables = [
        {"name": "fix", "kind": "tests", "weight": 0.8},
        {"name": "NOTES.md", "kind": "file", "weight": 0.2},
    ]
    a = Attempt("standard", time_limit_s=3600, budget=4, deliverables=deliverables)
    a.emit("starter.judged", result=make_result(0, static=passing(10, 4)), cached=False, key="k")
    a.wait(600).submit(static=passing(10, 4), deliverables={"NOTES.md": 1.0})
    card = judge_attempt(a.finish())
    assert card.components["objective"] == pytest.approx(0.8 * 40 + 20)
    assert card.work["credit"] == 0.0 and card.work["objective"] == 40.0
    assert card.total == pytest.approx(card.weights["objective"] * card.components["objective"], abs=0.05)
