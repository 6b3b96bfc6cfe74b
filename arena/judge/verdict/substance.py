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

This is a floor, not a reading: an agent can write sentences around identifiers that say
nothing, which only the judge model's rubric (``check:``, ``--judge-model``) can tell. What it
stops is the cheap case: a list of names copied from the tests earns 0 (a test says so).
"""

from __future__ import annotations

import re

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


def substance_score(text: str, terms: list[str], briefing: str = "") -> float:
    """0-1: the share of ``terms`` said in original prose (see the module docstring)."""
    prose = original_prose(text, briefing)
    if not terms:
        return 1.0 if prose else 0.0
    said = " \n ".join(prose).casefold()
    return sum(1 for t in terms if t.casefold() in said) / len(terms)


__all__ = ["original_prose", "statements", "substance_score"]
