"""The agent's own end reason, read from its output (issue 34 item 8).

An agent's exit code says little: OpenHands exits 0 when it reports itself STUCK, Claude
Code and Codex end with a final event of their own, mini-swe-agent prints its exit status.
``EndReader(adapter)`` is fed every output line (``feed(stream, line)``, cheap: only lines
that can matter are parsed) and ``end(exit_code)`` gives ``EndReason | None``:

- ``reason``: the agent's own word for how it ended (``finished``, ``stuck``, ``error``,
  ``error_max_turns``, ``LimitsExceeded``, ``Submitted``, ...);
- ``failed``: whether that word says the agent did not complete its run;
- ``text``: one line of the agent's own explanation ("" when it gave none).

``agent.exited`` carries ``end_reason`` (the word) and a ``detail`` naming it, never a
plain "exited normally" when the agent said otherwise. Agent files and unknown adapters
have no reader (``None``): their exit code is all there is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

TEXT_CAP = 300


@dataclass(frozen=True)
class EndReason:
    reason: str
    failed: bool
    text: str = ""

    def detail(self, adapter: str, exit_code: int | None) -> str:
        """``agent.exited``'s detail: the agent's own end, then how the process ended."""
        how = "exit 0" if exit_code == 0 else f"exit {exit_code}"
        said = f": {self.text}" if self.text else ""
        verb = "failed" if self.failed else "ended"
        return f"{adapter} {verb} ({self.reason}){said} [{how}]"


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())[:TEXT_CAP]


def _json(line: str) -> dict | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        doc = json.loads(line)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


class EndReader:
    """Feed it the agent's output lines; ``end(exit_code)`` is what the agent said last."""

    def __init__(self, adapter: str) -> None:
        self.adapter = adapter
        self.found: EndReason | None = None
        self._after_exit = False  # mini-swe-agent: the line after its "Exit:" header
        self._error = ""  # the last error the agent reported (OpenHands, Codex)
        self._feed: Callable[[str], None] = getattr(self, "_" + adapter.replace("-", "_"), self._none)

    def feed(self, stream: str, line: str) -> None:
        try:
            self._feed(line)
        except Exception:  # noqa: BLE001 — a line the reader did not expect never stops the agent
            return

    def end(self, exit_code: int | None) -> EndReason | None:
        found = self.found
        if found is not None and found.reason == "exit":  # mini-swe-agent's exit message
            ok = exit_code == 0  # a submission's text, or an uncaught error's message
            return EndReason("Submitted" if ok else "error", not ok, "" if ok else found.text)
        return found

    @staticmethod
    def _none(line: str) -> None:
        return None

    # -- one reader per built-in adapter --------------------------------------------------
    def _openhands(self, line: str) -> None:
        if '"kind"' not in line:
            return
        doc = _json(line)
        if doc is None:
            return
        if doc.get("kind") == "ConversationErrorEvent":
            self._error = _one_line(f"{doc.get('code') or 'error'}: {doc.get('detail') or ''}".rstrip(": "))
        elif doc.get("kind") == "finished":
            status = str(doc.get("status") or "unknown").rsplit(".", 1)[-1].lower()  # enum repr or value
            text = _one_line(doc.get("detail")) or (self._error if status != "finished" else "")
            self.found = EndReason(status, status != "finished", text)

    def _codex(self, line: str) -> None:
        if '"type"' not in line:
            return
        doc = _json(line)
        if doc is None:
            return
        kind = doc.get("type")
        if kind == "error":
            self._error = _one_line(doc.get("message"))
        elif kind == "turn.failed":
            err = doc.get("error") or {}
            text = _one_line(err.get("message") if isinstance(err, dict) else err) or self._error
            self.found = EndReason("turn.failed", True, text)
        elif kind == "turn.completed":
            self.found = EndReason("turn.completed", False)

    def _claude_code(self, line: str) -> None:
        if '"result"' not in line:
            return
        doc = _json(line)
        if doc is None or doc.get("type") != "result":
            return
        subtype = str(doc.get("subtype") or "result")
        failed = bool(doc.get("is_error")) or subtype != "success"
        text = ""
        if failed:
            status = doc.get("api_error_status")
            errors = doc.get("errors")
            text = _one_line(doc.get("result") or (errors[0] if isinstance(errors, list) and errors else ""))
            text = f"API status {status}: {text}".rstrip(": ") if status else text
        self.found = EndReason(subtype, failed, text)

    _MINI_FAILED = ("LimitsExceeded", "RepeatedFormatError", "TimeExceeded")

    def _mini_swe_agent(self, line: str) -> None:
        text = line.strip()
        if text == "Exit:":  # its interactive agent prints the exit message under this header
            self._after_exit, self.found = True, EndReason("Submitted", False)
            return
        if not self._after_exit or not text:
            return
        self._after_exit = False
        if text in self._MINI_FAILED:
            self.found = EndReason(text, True)
        elif not text.startswith("Saved trajectory"):
            # Submitted prints the submission (usually nothing); an uncaught error its message
            self.found = EndReason("exit", False, _one_line(text))

    def _aider(self, line: str) -> None:
        text = line.strip()
        if text.startswith("Only ") and "reflections allowed" in text:  # its auto-test loop gave up
            self.found = EndReason("reflection limit", True, _one_line(text))


def reader_for(adapter: str | None) -> EndReader | None:
    """The end-reason reader of a built-in adapter (None for agent files and others)."""
    if adapter in ("openhands", "codex", "claude-code", "mini-swe-agent", "aider"):
        return EndReader(adapter)
    return None
