"""The offline check of a file deliverable's substance (issue 20, item 1).

Without a judge model, a deliverable earns its share only for what it *says*, not for the
words it contains: a file that lists identifiers, or repeats the briefing, earns nothing.

The file is cut into statements: a paragraph, a list item or a heading (markdown markup
stripped). A statement is **prose** when it has at least ``MIN_WORDS`` words of which at least
``MIN_PLAIN`` are plain words (letters only: not identifiers, code, paths or numbers). A prose
statement **repeats the briefing** when at least ``COPIED`` of its word trigrams occur in the
briefing (any phase's). A deliverable term (``must_mention``) counts only when it occurs in an
original prose statement; the score is the share of terms found that way. A deliverable
without terms scores 1 with at least one original prose statement, else 0.

This is a floor, not a reading. Sentences around identifiers that say nothing are stopped by
the claims check (claims.py, issue 38): a named function, file or test counts only when the
submission changed it (or moved the test); a deliverable without terms earns the share of
its claims that hold. Whether the prose is *right* only the judge model's rubric
(``check:``, ``--judge-model``) can tell.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.judge.verdict.claims import Work

MIN_WORDS = 5
MIN_PLAIN = 3
COPIED = 0.5

_PLAIN = re.compile(r"^[A-Za-z][a-z]*(?:'[a-z]+)?$")  # a word of prose, not an identifier
_CODE_SPAN = re.compile(r"`([^`]*)`")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def statements(text: str) -> list[str]:
    """Paragraphs, list items and headings of a markdown/plain text file, markup stripped."""
    out: list[str] = []
    cur: list[str] = []
    in_fence = False

    def flush() -> None:
        if cur:
            out.append(" ".join(cur).strip())
            cur.clear()

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("```"):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue  # a code block is code, not prose
        if not s:
            flush()
            continue
        if s.startswith("#") or _ITEM.match(s):
            flush()
            s = _ITEM.sub("", s.lstrip("#").strip())
        cur.append(s)
    flush()
    return [s for s in out if s]


def _words(s: str) -> list[str]:
    return [w.strip(".,;:!?()[]{}\"*_'") for w in s.split() if w.strip(".,;:!?()[]{}\"*_'")]


def _plain_words(s: str) -> list[str]:
    """The words outside code spans that are plain words."""
    outside = _CODE_SPAN.sub(" ", s)
    return [w for w in (x.strip('.,;:!?()[]{}"*') for x in outside.split()) if _PLAIN.match(w)]


def _trigrams(words: list[str]) -> set[tuple[str, ...]]:
    lw = [w.casefold() for w in words]
    return {tuple(lw[i : i + 3]) for i in range(len(lw) - 2)}


def is_prose(s: str) -> bool:
    return len(_words(s)) >= MIN_WORDS and len(_plain_words(s)) >= MIN_PLAIN


def original_prose(text: str, briefing: str = "") -> list[str]:
    """The prose statements of ``text`` that do not repeat ``briefing``."""
    known = _trigrams(_words(briefing)) if briefing else set()
    out = []
    for s in statements(text):
        if not is_prose(s):
            continue
        grams = _trigrams(_words(s))
        if grams and known and len(grams & known) / len(grams) >= COPIED:
            continue
        out.append(s)
    return out


def substance_score(text: str, terms: list[str], briefing: str = "", work: Work | None = None) -> float:
    """0-1: the share of ``terms`` said in original prose (see the module docstring). With
    ``work`` (the submission against the starter, claims.py), a term that names a function,
    file or test counts only when that claim holds (a plain word: when the submission changed
    any code), and a deliverable without terms earns the share of its claims that hold, or
    with no claim 1 when it has original prose and the submission changed code."""
    prose = original_prose(text, briefing)
    if work is not None and not terms:
        claims = work.claims_in(prose)
        if claims:
            return sum(claims.values()) / len(claims)
        return 1.0 if prose and work.changed else 0.0
    if not terms:
        return 1.0 if prose else 0.0
    said = " \n ".join(prose).casefold()
    return sum(1 for t in terms if t.casefold() in said and _holds(work, t)) / len(terms)


def _holds(work: Work | None, term: str) -> bool:
    """A term names code: its claim must hold; a plain word counts once the submission changed
    anything (with no work, prose about it is not tied to any)."""
    if work is None:
        return True
    held = work.claim(term)
    return work.changed if held is None else held


__all__ = ["original_prose", "statements", "substance_score"]
