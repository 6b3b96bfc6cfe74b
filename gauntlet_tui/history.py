"""Reading the store for the screens: attempts as views, events, scorecards, ratings.
Only ``store``'s query methods and ``arena.scoring`` are used — no SQL here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.events import Event
from arena.view import AttemptView, view_of


async def _open(store_path: Path):  # noqa: ANN202
    from store import Store

    if not Path(store_path).exists():
        return None
    return await Store.open(store_path)


async def load_views(store_path: Path, limit: int = 200) -> list[AttemptView]:
    """Every stored attempt, folded from its events (newest first as the store lists them)."""
    store = await _open(store_path)
    if store is None:
        return []
    try:
        rows = await store.list_attempts(limit)
        views = []
        for row in rows:
            aid = row.get("attempt") or row.get("id")
            view = view_of(await store.events(aid))
            view.attempt = aid
            if view.status == "running" and row.get("status") and row["status"] != "running":
                view.status = row["status"]
            views.append(view)
        return views
    finally:
        await store.close()


async def load_events(store_path: Path, attempt: str) -> list[Event] | None:
    """The attempt's stored events, or None if the store or the attempt is unknown."""
    store = await _open(store_path)
    if store is None:
        return None
    try:
        if await store.get_attempt(attempt) is None:
            return None
        return list(await store.events(attempt))
    finally:
        await store.close()


def scorecard(events: list[Event]) -> dict[str, Any] | None:
    """The CONTRACT §6 scorecard of finished events (None while judging is unavailable)."""
    try:
        from arena.scoring import judge_attempt
    except ImportError:  # pragma: no cover — judging is part of the engine
        return None
    return judge_attempt(events).model_dump(mode="json")


async def ratings(store_path: Path | None) -> list[dict[str, Any]]:
    if store_path is None:
        return []
    store = await _open(store_path)
    if store is None:
        return []
    try:
        return list(await store.ratings("agents"))
    finally:
        await store.close()


def briefing_of(view: AttemptView, handle: Any = None) -> str:
    """The briefing the attempt's agent sees: the live attempt's own ``briefing.md``
    (phases revealed so far included), else the package's briefing plus the phase
    briefings the events revealed; a sentence saying why when neither can be read."""
    live = getattr(getattr(handle, "attempt", None), "agent_dir", None)
    if live is not None and (Path(live) / "briefing.md").is_file():
        return (Path(live) / "briefing.md").read_text(errors="replace")
    try:
        from arena.challenge import load_challenge, resolve_challenge

        text = load_challenge(resolve_challenge(view.challenge)).briefing.rstrip("\n")
    except Exception as exc:  # noqa: BLE001 — an unknown or moved package: say so
        return f"_The briefing of `{view.challenge or '?'}` cannot be read here: {exc}_"
    for phase in view.phases[1:]:
        if phase.open and phase.briefing:
            text += f"\n\n---\n\n# Phase {phase.number}\n\n{phase.briefing.rstrip()}"
    return text + "\n"
