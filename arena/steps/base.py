"""What every step parser shares: the step, its caps, safe text, JSON lines in pieces.

A step is ``{"step": KIND, "text": one line, "detail": optional}`` (CONTRACT §11,
docs/INTERFACES.md "Steps"). Text is the agent's own words or actions, so everything here
treats it as hostile: a line is cut before it is looked at (a 10 MB line is never copied
whole), control characters and escape sequences are shown as ``\\xNN`` (never obeyed by a
terminal), undecodable bytes as ``\\xNN``, and a parser's own failure on some line yields
nothing for that line, never an exception into the attempt (``StepParser.feed``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from arena.text import escaped

KINDS = ("text", "command", "edit", "read", "tool", "error")
TEXT_CAP = 200  # characters of a step's one line
DETAIL_CAP = 4000  # characters of a step's detail
JSON_CAP = 1 << 20  # characters of one JSON event kept while its pieces arrive
_LOOK = 4 * DETAIL_CAP  # characters of any one string looked at (the rest is never copied)
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class Step(NamedTuple):
    step: str  # one of KINDS
    text: str
    detail: str | None = None

    def data(self) -> dict[str, str]:
        """The ``agent.step`` event's data."""
        d = {"step": self.step, "text": self.text}
        if self.detail:
            d["detail"] = self.detail
        return d


def one_line(s: object, cap: int = TEXT_CAP) -> str:
    """The first non-blank line of ``s``, shown literally (``\\xNN`` for control
    characters), at most ``cap`` characters ("…" marks a cut)."""
    text = s if isinstance(s, str) else ("" if s is None else str(s))
    head = text[: cap * 8]
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    more = len(text) > len(head) or first.strip() != head.strip()
    shown = escaped(first.replace("\t", " ").strip())
    if len(shown) > cap:
        return shown[: cap - 1] + "…"
    return shown + (" …" if more and len(shown) + 2 <= cap else "")


def block(s: object, cap: int = DETAIL_CAP) -> str:
    """``s`` as a detail: lines kept, other control characters shown as ``\\xNN``, at
    most ``cap`` characters."""
    text = s if isinstance(s, str) else ("" if s is None else str(s))
    head = text[: cap + 1]
    lines = [escaped(ln.replace("\t", "    ")) for ln in head.split("\n")]
    out = "\n".join(lines).strip("\n")
    if len(out) > cap or len(text) > len(head):
        out = out[: cap - 1] + "…"
    return out


def joined(parts: Iterable[object], cap: int = DETAIL_CAP) -> str | None:
    """Non-empty parts as one detail (blank line between), or None."""
    text = "\n\n".join(str(p)[:_LOOK] for p in parts if p)
    return block(text, cap) if text.strip() else None


def lines_of(s: object) -> int:
    """How many lines a string spans (0 for empty)."""
    if not isinstance(s, str) or not s:
        return 0
    return s.count("\n") + (0 if s.endswith("\n") else 1)


def short_path(path: object, cwd: str | None = None) -> str:
    """A path as the agent's workspace sees it: relative to ``cwd`` when inside it."""
    p = path if isinstance(path, str) else ""
    for root in (cwd, "/workspace"):
        if root and p.startswith(root.rstrip("/") + "/"):
            return p[len(root.rstrip("/")) + 1 :]
    return p


class JsonLines:
    """JSON events, one a line, that may reach the arena in pieces (a long line is cut
    into pieces by the reader; a piece ends where the reader cut it). A piece that starts
    an object is held until the object parses or a new object starts; at most
    ``JSON_CAP`` characters are held (past that the event is dropped, unparsed)."""

    def __init__(self) -> None:
        self._held: list[str] = []
        self._size = 0

    def feed(self, line: str) -> tuple[list[dict[str, Any]], list[str]]:
        """(objects parsed, lines that are not JSON)."""
        objs: list[dict[str, Any]] = []
        other: list[str] = []
        stripped = line.strip()
        if stripped.startswith("{"):
            if stripped.endswith("}"):
                obj = _loads(stripped)
                if obj is not None:
                    self._drop()
                    return [obj], []
            if self._held:  # a new object starts: the held one never ended
                self._drop()
            self._hold(line)
            return objs, other
        if self._held:
            self._hold(line)
            if stripped.endswith("}") and self._size <= JSON_CAP:
                obj = _loads("".join(self._held))
                if obj is not None:
                    self._drop()
                    return [obj], []
            return objs, other
        if stripped:
            other.append(line)
        return objs, other

    def _hold(self, piece: str) -> None:
        if self._size + len(piece) > JSON_CAP:
            self._held, self._size = ["\0"], JSON_CAP + 1  # over the cap: swallow the rest
            return
        self._held.append(piece)
        self._size += len(piece)

    def _drop(self) -> None:
        self._held, self._size = [], 0


def _loads(s: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(s)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


@dataclass
class RateBucket:
    """At most ``rate`` steps a second (burst ``burst``) over the attempt time given."""

    rate: float = 20.0
    burst: float = 200.0
    tokens: float = -1.0
    last: float | None = None
    dropped: int = 0

    def take(self, now: float | None) -> bool:
        if self.tokens < 0:
            self.tokens = self.burst
        if now is not None:
            if self.last is not None and now > self.last:
                self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now if self.last is None else max(self.last, now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.dropped += 1
        return False


class StepParser:
    """One attempt's parser: fed the agent's output line by line (``feed``), it returns
    the steps each line completes; ``finish`` returns what was still pending at the end.
    Subclasses implement ``_feed`` (and ``_finish``); whatever they raise is swallowed."""

    name = "plain"

    def __init__(self) -> None:
        self.bucket = RateBucket()
        self.failures = 0  # lines a parser failed on (nothing was made of them)

    def feed(self, stream: str, line: str, now: float | None = None) -> list[Step]:
        if not isinstance(line, str):
            return []
        try:
            return [s for s in self._feed(stream, line, now) if s.text]
        except Exception:  # noqa: BLE001 - hostile output never takes the attempt down
            self.failures += 1
            return []

    def finish(self) -> list[Step]:
        try:
            return [s for s in self._finish() if s.text]
        except Exception:  # noqa: BLE001
            self.failures += 1
            return []

    def _feed(self, stream: str, line: str, now: float | None) -> list[Step]:
        return self.plain(line, now)

    def _finish(self) -> list[Step]:
        return []

    def plain(self, line: str, now: float | None, kind: str = "text") -> list[Step]:
        """A line of plain output as one step (rate-bounded; blank lines make none)."""
        if not line[:_LOOK].strip() and len(line) <= _LOOK:
            return []
        if not self.bucket.take(now):
            return []
        return [Step(kind, one_line(line))]


_ERRORISH = re.compile(r"\b(error|Error|ERROR|panic|Traceback|FATAL|fatal|Exception)\b")


def stderr_steps(parser: "StepParser", line: str, now: float | None) -> list[Step]:
    """A line a JSON-speaking agent wrote outside its event stream, on stderr: an error
    step when it reads like one, else nothing (its warnings stay in the raw output)."""
    return parser.plain(line, now, "error") if _ERRORISH.search(line[:_LOOK]) else []


class JsonStepParser(StepParser):
    """The parser of an agent that prints JSON events, one a line (Claude Code, Codex,
    OpenHands): each event is ``event``'s to make steps of (an event may reach the arena in
    pieces: ``JsonLines``); a line that is not JSON is a plain text step on stdout, and on
    stderr an error step when it reads like one (``stderr_steps``)."""

    def __init__(self) -> None:
        super().__init__()
        self.json = {"stdout": JsonLines(), "stderr": JsonLines()}

    def _feed(self, stream: str, line: str, now: float | None) -> list[Step]:
        objs, other = self.json.setdefault(stream, JsonLines()).feed(line)
        out: list[Step] = []
        for text in other:
            out += self.plain(text, now) if stream == "stdout" else stderr_steps(self, text, now)
        for obj in objs:
            out += self.event(obj)
        return out

    def event(self, obj: dict[str, Any]) -> list[Step]:
        """The steps one JSON event makes (none by default)."""
        return []


def text_step(text: object) -> Step:
    """What a model said: its first line; the whole (capped) as detail when longer."""
    line = one_line(text)
    full = block(text) if isinstance(text, str) else ""
    return Step("text", line, full if full and full != line else None)


def clean(s: str) -> str:
    """Control characters of a short field removed (names, paths)."""
    return _CTRL.sub("?", s)
