"""Toasts on the dashboard for the moments a room should not miss: the 80% and 90%
warnings, the cutoff, the end of grace, a phase reveal, an infrastructure error. One
toast per kind per refresh (a burst of six warnings is one line naming the six), and an
optional terminal bell (``GAUNTLET_BELL=1`` or the ``bell`` setting).

Only the attempts of the current heat are announced (``app.in_heat``: an old attempt's
infrastructure error is history, not news), and a long detail is shortened at a word,
never mid-word (``clip``)."""

from __future__ import annotations

import os
from typing import Any

from gauntlet_tui import settings

_TITLES = {
    "clock.soft_warning": ("80% of the time used", "warning"),
    "clock.hard_warning": ("90% of the time used", "warning"),
    "clock.cutoff": ("time is up (cutoff)", "warning"),
    "clock.grace_end": ("grace period over", "information"),
    "phase.revealed": ("phase revealed", "information"),
    "infra.error": ("infrastructure error", "error"),
}


def bell_enabled() -> bool:
    return os.environ.get("GAUNTLET_BELL") == "1" or bool(settings.load().get("bell"))


def clip(text: str, limit: int = 80) -> str:
    """``text`` in at most ``limit`` characters, cut after a whole word (``…`` marks the
    cut); a single word longer than that is cut at the limit."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head and text[limit - 1] != " ":
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-") + "…"


def announce(app: Any, alerts: list[Any]) -> list[str]:
    """Notify one toast per kind; returns the messages (tests read them). Alerts of
    attempts outside the current heat are dropped."""
    in_heat = getattr(app, "in_heat", None)
    by_kind: dict[str, list[str]] = {}
    for ev in alerts:
        if in_heat is not None and not in_heat(ev.attempt):
            continue
        view = app.adapter.views.get(ev.attempt)
        who = f"{view.challenge} · {view.name}" if view is not None else ev.attempt
        if ev.kind == "phase.revealed":
            who += f" → phase {ev.data.get('phase', '?')}"
        if ev.kind == "infra.error":
            who += f": {ev.data.get('source', '')} {clip(str(ev.data.get('detail', '')))}"
        by_kind.setdefault(ev.kind, []).append(who)
    out = []
    for kind, whos in by_kind.items():
        title, severity = _TITLES.get(kind, (kind, "information"))
        msg = f"{title}: " + ", ".join(whos[:6]) + (f" (+{len(whos) - 6})" if len(whos) > 6 else "")
        app.notify(msg, severity=severity, timeout=8 if severity != "error" else 20)
        out.append(msg)
    if out and bell_enabled() and any(k != "clock.grace_end" for k in by_kind):
        app.bell()
    return out
