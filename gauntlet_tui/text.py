"""Building styled text from untrusted strings (test names, failure messages, briefings,
filter text) without ever parsing them as markup: ``line(("Build", "b"), " ", text)``
assembles a ``Content`` from plain parts; styles are theme variables (``$error``...).

Every string from a package, an agent file, an agent, a model or an error is text, never
markup (issue 36): ``plain`` is the one filter (control sequences stripped, control and
bidi-override characters shown as ``?``, cut at ``LIMIT`` characters); ``line`` and
``esc`` apply it to their parts; ``notify`` is the app's only way to a toast (the app's
own ``notify`` goes through it, so ``Widget.notify`` from any screen does too)."""

from __future__ import annotations

import re
from typing import Any, Iterable, Union

from rich.text import Text
from textual.content import Content

from arena.text import printable  # agent text: no terminal control sequences

Part = Union[str, Content, tuple[str, str]]

LIMIT = 2000  # characters of one outside string on screen (a 100 KB name is cut, with …)
TOAST_LIMIT = 600  # characters of a toast: a toast of 100 KB names would cover the room
# bidi overrides/isolates/marks: they would reorder what follows them (a name that reads
# backwards, a spoofed extension), so they are shown as ``?``
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: object, *, newlines: bool = True) -> str:
    """``text`` safe for the screen, whole: no control sequence, no bidi override."""
    return _BIDI.sub("?", printable(text, newlines=newlines))


def plain(text: object, *, limit: int = LIMIT, newlines: bool = True) -> str:
    """Any outside string as text to show: ``shown``, and cut at ``limit`` characters."""
    out = shown(text, newlines=newlines)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def as_text(text: object, *, limit: int = LIMIT) -> Content:
    """Any outside string as a widget's content (``Static.update``, ``border_title``):
    ``plain``, never parsed as markup."""
    return Content(plain(text, limit=limit))


def cell(text: object, *, limit: int = 200) -> Text:
    """Any outside string as a ``DataTable`` cell (which parses a ``str`` as markup)."""
    return Text(plain(text, limit=limit, newlines=False))


def notify(
    app: Any, message: object, *, title: object = "", severity: Any = "information", timeout: Any = None
) -> None:
    """A toast whose message and title are text, never markup (``[/]`` in an agent's name
    raised ``MarkupError`` in the toast and ended the app; ``[@click=…]`` ran an action)."""
    from textual.notifications import Notification, Notify

    wait = app.NOTIFICATION_TIMEOUT if timeout is None else timeout
    shown_title = plain(title, limit=200, newlines=False)
    app.post_message(Notify(Notification(plain(message, limit=TOAST_LIMIT), shown_title, severity, wait, markup=False)))


def line(*parts: Part) -> Content:
    return Content.assemble(
        *(shown(p) if isinstance(p, str) else p if isinstance(p, Content) else (shown(p[0]), p[1]) for p in parts)
    )


def lines(items: Iterable[Content]) -> Content:
    return Content("\n").join(list(items))


def esc(text: object) -> str:
    """Make any text literal inside content markup. (``textual.markup.escape`` only escapes
    what looks like a tag, so ``[Task(id=1, ...)]`` in a failure message still breaks it.)"""
    return shown(text).replace("[", "\\[")
