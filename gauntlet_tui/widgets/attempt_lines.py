"""An attempt's state in words, shared by the big board's cards (screens/bigboard.py) and
the dashboard's detail pane (widgets/detail.py): the card state (``STATES``), the state
line and the latest feedback line. Imports nothing of gauntlet_tui but widgets/clock.py."""

from __future__ import annotations

from arena.view import AttemptView
from gauntlet_tui.widgets.clock import fmt_clock

STATES = ("ok", "warning", "urgent", "grace", "over", "infra")


def card_state(view: AttemptView, elapsed: float) -> str:
    if view.status == "infra_error":
        return "infra"
    stage = view.stage(elapsed)
    if view.finished or stage == "over":
        return "over"
    if stage == "grace":
        return "grace"
    return view.clock_level(elapsed)  # ok | warning | urgent


def state_line(view: AttemptView, elapsed: float) -> str:
    state = card_state(view, elapsed)
    score = view.last_score
    # the last submission's objective, as the dashboard's Score column shows it before the total
    score_s = "obj —" if score is None else f"obj {score:.1f}"
    left = max(0.0, view.time_limit_s - view.elapsed_s)
    ended = "done" if view.shown_status == "finished" else view.shown_status  # "hung, 27:50 left"
    what = {
        "ok": "running",
        "warning": "80% — warning",
        "urgent": "90% — hurry",
        "grace": "GRACE — final message only",
        "over": (f"{ended}, {fmt_clock(left)} left" if view.finished and left >= 1 else f"over — {view.shown_status}"),
        "infra": "INFRA ERROR",
    }[state]
    phase = f" · phase {view.current_phase}/{len(view.phases)}" if len(view.phases) > 1 else ""
    return f"{what} · {score_s} · sub {view.submissions_used}/{view.budget}{phase}"


def feedback_line(view: AttemptView) -> str:
    if view.status == "infra_error" and view.reason:
        return view.reason[:120]
    if not view.feedback:
        return "no feedback yet"
    n = max(view.feedback)
    doc = view.feedback[n]
    parts = [f"#{n}"]
    for key in ("tests", "hidden", "adversarial"):
        suite = doc.get(key)
        if isinstance(suite, dict) and suite.get("total"):
            parts.append(f"{key} {suite.get('passed', 0)}/{suite['total']}")
    build = doc.get("build")
    if isinstance(build, dict) and build.get("ok") is False:
        parts.append("BUILD FAILED")
    return " · ".join(parts)
