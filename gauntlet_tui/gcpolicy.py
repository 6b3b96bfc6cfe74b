"""When the garbage collector may pause the room.

CPython's full collections walk every tracked object; a dashboard process holds a few
hundred thousand (modules, widgets, the attempts' views), and each full pass stopped the
app, and the engine running in its loop, for 0.1-0.3 s: a key pressed then waited for
it. Once the app is up (and again once a store's attempts are loaded) ``settle()``
freezes what is there (``gc.freeze``, no pass of its own: a pause at start-up is a pause
too): later passes walk only what was made since. It also lets the youngest generation grow to ``YOUNG`` objects
before a pass (CPython's 700 made a pass every few milliseconds at 10,000 events/s,
each promoting events that die at the next refresh anyway). ``release()`` (the app
exiting) undoes both, so an app's objects can be collected after it ends (tests run
many apps in one process).
"""

from __future__ import annotations

import gc

YOUNG = 20_000
_default: tuple[int, int, int] | None = None


def settle() -> None:
    global _default
    gc.freeze()
    if _default is None:
        _default = gc.get_threshold()
        gc.set_threshold(YOUNG, _default[1], _default[2])


def release() -> None:
    global _default
    gc.unfreeze()
    if _default is not None:
        gc.set_threshold(*_default)
        _default = None
