"""Never crash the room: 2,000 seeded random keys at a demo-like live room (six attempts
of the three formats on one manual clock, events arriving while the keys go in): no
traceback, nothing reported by the app's guard, the app still running, and every
attempt still running or finished normally. The palette's reported crash (ctrl+p, zz,
PageDown at once) is in the key stream too."""

from __future__ import annotations

import asyncio
import random
import unicodedata

from textual import events
from textual.keys import _get_unicode_name_from_key

import tui_scenarios as sc
from tui_scenarios import RecordingHandle

# Everything a person can press, except what ends the room on purpose: q / ctrl+c (quit),
# x (stop an attempt) and y (the confirmations' yes).
KEYS = list("abcdefghijklmnoprstuvwz0123456789") + [
    "enter",
    "escape",
    "tab",
    "shift+tab",
    "up",
    "down",
    "left",
    "right",
    "pageup",
    "pagedown",
    "home",
    "end",
    "backspace",
    "space",
    "slash",
    "question_mark",
    "exclamation_mark",
    "left_square_bracket",
    "right_square_bracket",
    "plus",
    "minus",
    "ctrl+p",
    "ctrl+p",
]
FORMATS = ("sprint", "sprint", "standard", "standard", "marathon", "marathon")


def _send(app, key: str) -> None:
    """A key as the terminal driver delivers it, without waiting for the app (mashing)."""
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def _drained(app) -> None:
    """Wait until every key sent so far has been handled. run_test's exit shuts the app down
    while its message loop still runs, so a key left queued then meets an empty screen stack
    (Textual's ScreenStackError, seen once in CI under load): a sentinel sent the way the keys
    are, behind them in the app's queue, says the backlog is gone."""
    done = asyncio.Event()
    app._driver.send_message(events.Callback(callback=done.set))
    await asyncio.wait_for(done.wait(), timeout=120)


def _events(rig, ids, step, rng):
    """What the engine publishes at this point of the run."""
    rig.time.advance(15.0)
    for i, (aid, fmt) in enumerate(zip(ids, FORMATS)):
        view = rig.adapter.views.get(aid)
        if view is not None and view.finished:
            continue
        t = rig.clocks[aid].elapsed()
        sc.activity(rig.bus, aid, t)
        if step % 7 == i:
            n = (view.submissions_used if view else 0) + 1
            if n <= sc.BUDGETS[fmt]:
                sc.submit(rig.bus, aid, n, t, sc.doc(fmt, n, t), rng.uniform(20, 95))
        if fmt == "marathon" and step == 30 + i:
            sc.reveal(rig.bus, aid, 2, t)
        if step == 60 + 5 * i and i % 2 == 0:
            sc.finish(rig.bus, aid, t)


async def test_two_thousand_random_keys_do_not_crash_a_live_room(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a screenshot from the palette lands here
    rng = random.Random(13)
    rig = sc.Rig()
    ids = [f"a-000000{i:02d}" for i in range(len(FORMATS))]
    for aid, fmt in zip(ids, FORMATS):
        rig.start(aid, fmt)
        rig.adapter.attach_handle(aid, RecordingHandle(rig, aid))
    app = rig.app(live_refresh=True, refresh_hz=20.0)
    async with app.run_test(size=(140, 45)) as pilot:
        app.tick(full=True)
        await pilot.press("ctrl+p", "z", "z", "pagedown")  # the reported palette crash
        sent, step = 4, 0
        while sent < 2000:
            batch = [rng.choice(KEYS) for _ in range(rng.randint(1, 12))]
            for key in batch:
                _send(app, key)
                await asyncio.sleep(0)
            sent += len(batch)
            step += 1
            _events(rig, ids, step, rng)
            if rng.random() < 0.3:
                await pilot.pause(rng.choice((0.01, 0.05, 0.3)))
            assert app.is_running and app._exception is None, app.guard.errors
        await _drained(app)
        await pilot.pause(0.2)
        app.tick(full=True)
        assert app.guard.errors == []
        assert app._exception is None and app.is_running
        for aid in ids:
            view = rig.adapter.views[aid]
            assert view.status in (None, "running", "finished"), (aid, view.status)
            assert rig.adapter.handle(aid).stopped == 0
    assert app.return_code in (None, 0)
