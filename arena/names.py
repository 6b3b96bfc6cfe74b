"""What a contestant is called on screen, and the status word an attempt shows (no Textual).

A contestant's *display name* is the ``contestant`` a plan entry gave (``name:``), else its
identity (``codex@openai/gpt-4.1-mini``, or an agent file's ``name (adapter, provider/model)``).
Where room is short, a derived name is shortened in steps, each one only when the others
shown stay told apart (``Namer.forms``, longest first):

1. the identity as it is;
2. without the model's provider (``codex@gpt-4.1-mini``), unless another contestant
   differs from this one by the provider only;
3. the model's family cut from the left (``codex@…4.1-mini``): the model's leading token
   (``gpt``, ``claude``) goes, never a token where the model differs from another
   contestant of the same agent, and never its last token.

A screen shows the longest form that fits and never cuts one further: the shortest form
is what its column must give room to. A display name a plan gave is never shortened.

Status words are never cut either, and an attempt the hang watchdog ended
(``finished`` with reason ``agent hung``) shows as ``hung`` on every screen (``shown_status``).
"""

from __future__ import annotations

import re
from typing import Iterable

ELLIPSIS = "…"
HUNG = "hung"
_TOKEN = re.compile(r"[^-/_:]+|[-/_:]")  # a model name's words and the separators between them


def shown_status(status: str, reason: str = "") -> str:
    """The status word a screen shows: ``hung`` for an attempt ended as hung (status
    ``finished`` with reason "agent hung…", or a status ``hung``), else the status as is."""
    if status == HUNG or (status == "finished" and (reason or "").strip().lower().startswith("agent hung")):
        return HUNG
    return status


def model_of(agent: str, model: str = "") -> str:
    """The ``provider/model`` of a contestant: the ``model`` recorded, else read from an
    ``ADAPTER@PROVIDER/MODEL`` identity; "" for an agent without a model."""
    if model:
        return model
    _, at, rest = agent.partition("@")
    return rest if at and "/" in rest else ""


def display_name(agent: str, model: str = "", contestant: str = "") -> str:
    """The full display name: the plan's name when it gave one, else the identity."""
    return contestant.strip() or agent or "?"


def _split_model(model: str) -> tuple[str, str]:
    """``("openai", "gpt-4.1-mini")`` of ``openai/gpt-4.1-mini``; no provider: ``("", model)``."""
    provider, slash, rest = model.partition("/")
    return (provider, rest) if slash and rest else ("", model)


def _words(name: str) -> list[str]:
    """The words of a model name, separators dropped (``gpt-4.1-mini`` -> gpt, 4.1, mini)."""
    return [t for t in _TOKEN.findall(name) if t not in "-/_:"]


def _cut(name: str, keep_from: int) -> str:
    """``name`` without its first ``keep_from`` words (and the separator after them), ``…`` first."""
    if keep_from <= 0:
        return name
    tokens = _TOKEN.findall(name)
    seen = 0
    for i, t in enumerate(tokens):
        if t not in "-/_:":
            if seen == keep_from:
                return ELLIPSIS + "".join(tokens[i:])
            seen += 1
    return name


class Namer:
    """Display names of a set of contestants (``(agent, model)`` pairs: the identity and
    the ``provider/model`` recorded), each told apart from the others."""

    def __init__(self, contestants: Iterable[tuple[str, str]] = ()) -> None:
        self.members = frozenset((a, model_of(a, m)) for a, m in contestants)
        self._forms: dict[tuple[str, str, str], tuple[str, ...]] = {}

    def forms(self, agent: str, model: str = "", contestant: str = "") -> tuple[str, ...]:
        """The names this contestant may show, longest first; every one of them tells it
        apart from the other members. A plan's name: that name alone."""
        key = (agent, model, contestant)
        got = self._forms.get(key)
        if got is None:
            got = self._forms[key] = self._make(agent, model_of(agent, model), contestant)
        return got

    def _make(self, agent: str, model: str, contestant: str) -> tuple[str, ...]:
        full = display_name(agent, model, contestant)
        if contestant.strip() or not model or model not in agent:
            return (full,)
        head = agent.replace(model, "\0", 1)  # the identity around its model: who runs it
        provider, bare = _split_model(model)
        others = [
            _split_model(m) for a, m in self.members if m and m in a and a.replace(m, "\0", 1) == head and m != model
        ]
        out = [full]
        if provider and all(b != bare for _p, b in others):
            out.append(head.replace("\0", bare))
        else:
            bare = model  # the provider tells it apart: kept, and the cut starts after it
        words = _words(bare)
        keep = min(1, len(words) - 1)  # the family (the first word) at most, never the last word
        for _p, other in others:
            theirs = _words(other) if bare != model else _words(f"{_p}/{other}")
            differ = next((i for i, w in enumerate(words) if i >= len(theirs) or theirs[i] != w), len(words))
            keep = min(keep, differ)
        if keep > 0:
            out.append(head.replace("\0", _cut(bare, keep)))
        return tuple(dict.fromkeys(out))

    def name(self, agent: str, model: str = "", contestant: str = "", width: int | None = None) -> str:
        """The longest form within ``width`` cells (all of it without one); the shortest
        form when none fits (a screen wraps it, it never cuts it)."""
        forms = self.forms(agent, model, contestant)
        if width is None:
            return forms[0]
        return next((f for f in forms if len(f) <= width), forms[-1])

    def shortest(self, agent: str, model: str = "", contestant: str = "") -> str:
        return self.forms(agent, model, contestant)[-1]
