"""Building styled text from untrusted strings (test names, failure messages, briefings,
filter text) without ever parsing them as markup: ``line(("Build", "b"), " ", text)``
assembles a ``Content`` from plain parts; styles are theme variables (``$error``...)."""

from __future__ import annotations

from typing import Iterable, Union

from textual.content import Content

from arena.text import printable  # agent text: no terminal control sequences

Part = Union[str, Content, tuple[str, str]]


def line(*parts: Part) -> Content:
    return Content.assemble(
        *(
            printable(p) if isinstance(p, str) else p if isinstance(p, Content) else (printable(p[0]), p[1])
            for p in parts
        )
    )


def lines(items: Iterable[Content]) -> Content:
    return Content("\n").join(list(items))


def esc(text: object) -> str:
    """Make any text literal inside content markup. (``textual.markup.escape`` only escapes
    what looks like a tag, so ``[Task(id=1, ...)]`` in a failure message still breaks it.)"""
    return printable(text).replace("[", "\\[")
