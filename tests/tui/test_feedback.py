"""Feedback panes render exactly the disclosed document (made by arena.rules.disclose):
Sprint without failure messages, Standard with them, adversarial from the 3rd."""

from __future__ import annotations

from textual.widgets import TabbedContent

import tui_scenarios as S
from gauntlet_tui.widgets import FeedbackPane
from gauntlet_tui.widgets.feedback_pane import render_feedback


async def _attempt_with(rig, fmt: str, n_subs: int, size=(140, 50)):
    rig.start("a-1", fmt)
    for n in range(1, n_subs + 1):
        S.submit(rig.bus, "a-1", n, 100.0 * n, S.doc(fmt, n, 100.0 * n), 30.0 + 10 * n)
    return rig.app()


def _pane_text(app, n: int) -> str:
    pane = app.screen.query_one(f"#sub-{n} FeedbackPane", FeedbackPane)
    return str(pane.query_one(".feedback-body").render())


async def _open(app, pilot):
    app.tick(full=True)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def test_sprint_pane_has_test_names_and_categories_but_no_failure_messages(rig):
    app = await _attempt_with(rig, "sprint", 1)
    async with app.run_test(size=(140, 50)) as pilot:
        await _open(app, pilot)
        text = _pane_text(app, 1)
        assert "test_edge_empty_input" in text and "test_basic_sort" in text
        assert "Tests 2/4 passed" in text and "Hidden 2/3 passed" in text
        assert "AssertionError: expected [] got None" not in text
        assert "assert [2, 1] == [1, 2]" not in text
        assert "Lint" not in text and "Coverage" not in text


async def test_standard_pane_shows_failure_messages_lint_and_coverage(rig):
    app = await _attempt_with(rig, "standard", 1)
    async with app.run_test(size=(140, 50)) as pilot:
        await _open(app, pilot)
        text = _pane_text(app, 1)
        assert "AssertionError: expected [] got None" in text
        assert "assert [2, 1] == [1, 2]" in text
        assert "Lint 0 errors, 1 warnings" in text and "line 78.4%" in text
        assert "Adversarial" not in text and "Diff" not in text


async def test_adversarial_absent_from_the_2nd_standard_pane_and_present_in_the_3rd(rig):
    app = await _attempt_with(rig, "standard", 3)
    async with app.run_test(size=(140, 50)) as pilot:
        await _open(app, pilot)
        tabs = app.screen.query_one("#feedback", TabbedContent)
        assert tabs.active == "sub-3"  # the newest submission is shown
        second, third = _pane_text(app, 2), _pane_text(app, 3)
        assert "Adversarial" not in second and "test_adv_huge_input" not in second
        assert "Regressions test_basic_sort" in second and "Diff 2 files" in second
        assert "Adversarial 1/2 passed" in third and "test_adv_huge_input" in third
        assert "Timeout after 2s" in third


async def test_prev_and_next_keys_walk_the_submission_tabs(rig):
    app = await _attempt_with(rig, "standard", 3)
    async with app.run_test(size=(140, 50)) as pilot:
        await _open(app, pilot)
        tabs = app.screen.query_one("#feedback", TabbedContent)
        await pilot.press("left_square_bracket")
        assert tabs.active == "sub-2"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert tabs.active == "sub-1"
        await pilot.press("right_square_bracket")
        assert tabs.active == "sub-2"


def test_text_from_the_document_is_never_parsed_as_markup():
    doc = {
        "submission": 1,
        "tests": {
            "total": 1,
            "passed": 0,
            "failed": 1,
            "failures": [
                {
                    "name": "test_[b]x",
                    "message": "assert [Task(id=1, title='w1')] == [] [/] [$error]",
                    "category": "[x]",
                }
            ],
        },
        "notices": ["[bold]not markup[/bold]"],
    }
    text = render_feedback(doc).plain
    assert "assert [Task(id=1, title='w1')] == [] [/] [$error]" in text
    assert "test_[b]x" in text and "[bold]not markup[/bold]" in text


def test_every_field_of_the_document_is_drawn_and_unknown_ones_too():
    doc = {
        "submission": 4,
        "score_preview": {"objective": 61.0},
        "notices": ["Submission identical to previous iteration."],
        "phase": {"current": 2, "completed": [1], "hint": "look at the cache"},
        "x-extra": 7,
    }
    text = render_feedback(doc).plain
    for needle in (
        "Score preview objective 61.0",
        "Submission identical to previous iteration.",
        "Phase 2 (completed: 1)",
        "hint: look at the cache",
        "x-extra",
    ):
        assert needle in text
