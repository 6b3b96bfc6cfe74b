"""The offline substance check of file deliverables (arena/judge/verdict/substance.py, issue 20)."""

from __future__ import annotations

from pathlib import Path

from arena.judge.verdict.substance import original_prose, statements, substance_score

TERMS = ["_find_runs", "_run_end", "test_reverse_is_ascending_backwards"]
OFF_BY_ONE = Path(__file__).resolve().parents[2] / "arena" / "bundled" / "off-by-one"


def test_a_list_of_identifiers_earns_nothing():
    briefing = (OFF_BY_ONE / "briefing.md").read_text()
    for text in (
        "_find_runs _run_end test_reverse_is_ascending_backwards\n",
        "- _find_runs\n- _run_end\n- test_reverse_is_ascending_backwards\n",
        "# _find_runs\n\n`_run_end`, `test_reverse_is_ascending_backwards`\n",
    ):
        assert substance_score(text, TERMS, briefing) == 0.0, text


def test_repeating_the_briefing_earns_nothing():
    briefing = (OFF_BY_ONE / "briefing.md").read_text()
    assert substance_score(briefing + "\n\n_find_runs, _run_end\n", TERMS, briefing) == 0.0


def test_the_packages_own_notes_keep_their_share():
    briefing = (OFF_BY_ONE / "briefing.md").read_text()
    for f in [OFF_BY_ONE / "solution" / "NOTES.md", *sorted((OFF_BY_ONE / "agents").rglob("NOTES.md"))]:
        text = f.read_text()
        old = sum(t.casefold() in text.casefold() for t in TERMS) / len(TERMS)  # the term count alone
        assert substance_score(text, TERMS, briefing) == old, f


def test_code_blocks_are_not_prose_and_items_are_statements():
    text = "Intro line that says what was wrong here.\n\n```\n_find_runs(x) is the cause of it all\n```\n- one\n- two"
    assert statements(text) == ["Intro line that says what was wrong here.", "one", "two"]
    assert original_prose(text) == ["Intro line that says what was wrong here."]
    assert substance_score(text, []) == 1.0 and substance_score("- one\n- two", []) == 0.0


def test_docs_state_the_thresholds_the_code_has():
    from arena.judge.verdict import substance

    doc = (Path(__file__).resolve().parents[2] / "docs" / "judging.md").read_text()
    assert f"at least {substance.MIN_WORDS} words, at least {substance.MIN_PLAIN} of them plain words" in " ".join(
        doc.split()
    )
