"""mini-swe-agent's printed trajectory (``mini``, rich-printed, wrapped at 80 columns) as
steps: a handful per model turn instead of every line.

Each message is printed under a header: ``mini-swe-agent (step N, $C):`` for the model's
turn, ``System:``, ``User:``, ``Tool:`` (a command's ``<returncode>``/``<output>``),
``Exit:``. A model turn's prose (``THOUGHT:`` in the text-based config) is a text step;
each fenced block (```` ``` ```` or ```` ```bash ````) in it a command step. The prompt
(System, User) makes no step but a tool-call format error (``<error>`` in a User message)
is an error step, and so is an exit other than a submission. Tool output makes no step
(a non-zero ``<returncode>`` marks the command's step). Lines that rich wrapped (a
trailing space, or a full 80 columns) are joined back.
"""

from __future__ import annotations

import re

from arena.steps.base import Step, StepParser, block, joined, one_line, text_step

_HEADER = re.compile(r"^mini-swe-agent \(step \d+, \$[\d.,]+\):\s*$")
_ROLE = re.compile(r"^(System|User|Tool|Exit|Assistant|Unknown):\s*$")
_RULE = "────"
_FAILED = re.compile(r"^\w*(Error|Exceeded|Exception|Interrupt\w*)\b")
_WIDTH = 80
_MAX_LINES = 400  # lines of one message kept for its steps


def _unwrap(lines: list[str]) -> list[str]:
    """Lines rich wrapped at the console width joined back into the agent's lines."""
    out: list[str] = []
    glue = False
    for ln in lines:
        if glue and out:
            out[-1] += ln
        else:
            out.append(ln)
        glue = ln.endswith(" ") or len(ln) >= _WIDTH
    return out


class MiniSweAgentParser(StepParser):
    name = "mini-swe-agent"

    def __init__(self) -> None:
        super().__init__()
        self.role: str | None = None  # None: before the first message (the banner)
        self.prose: list[str] = []
        self.code: list[str] | None = None  # inside a fenced block
        self.error_next = False
        self.returncode_next = False
        self.last_command: Step | None = None

    def _feed(self, stream: str, line: str, now: float | None) -> list[Step]:
        if stream != "stdout":
            return self._stderr(line, now)
        line = line[:4000]
        if _HEADER.match(line):
            return self._close() + self._open("assistant")
        m = _ROLE.match(line)
        if m and self.code is None:
            return self._close() + self._open(m.group(1).lower())
        if line.startswith(_RULE):
            return self._close()
        if self.role == "assistant":
            return self._assistant(line)
        if self.role == "user":
            if line.strip() == "<error>":
                self.error_next = True
            elif self.error_next and line.strip():
                self.error_next = False
                return [Step("error", one_line(f"format error: {line}"))]
            return []
        if self.role == "tool":
            if line.strip() == "<returncode>":
                self.returncode_next = True
            elif self.returncode_next:
                self.returncode_next = False
                code = line.strip()
                if code not in ("0", "") and self.last_command is not None:
                    step, self.last_command = self.last_command, None
                    return [Step("error", one_line(f"{step.text} → exit {code}"))]
            return []
        if self.role == "exit":
            if line.strip():
                self.role = "exit-said"
                kind = "error" if _FAILED.match(line.strip()) else "text"
                return [Step(kind, one_line(f"exit: {line}"))]
        return []

    def _stderr(self, line: str, now: float | None) -> list[Step]:
        if line.startswith(("Traceback", "Error", "error:")) or "Error:" in line[:200]:
            return self.plain(line, now, "error")
        return []

    def _open(self, role: str) -> list[Step]:
        self.role = role
        self.prose, self.code = [], None
        self.error_next = self.returncode_next = False
        return []

    def _close(self) -> list[Step]:
        out: list[Step] = []
        if self.role == "assistant":
            out += self._prose()
            if self.code is not None:
                out += self._command()
        if self.role == "exit":  # an empty exit message: the agent submitted
            out.append(Step("text", "finished (submitted)"))
        self.role, self.prose, self.code = "between", [], None
        return out

    def _assistant(self, line: str) -> list[Step]:
        if line.startswith("```"):
            if self.code is None:
                out = self._prose()
                self.code = []
                return out
            return self._command()
        if self.code is not None:
            if len(self.code) < _MAX_LINES:
                self.code.append(line)
        elif len(self.prose) < _MAX_LINES:
            self.prose.append(line)
        return []

    def _prose(self) -> list[Step]:
        text = "\n".join(_unwrap(self.prose)).strip()
        self.prose = []
        if text.startswith("THOUGHT:"):
            text = text[len("THOUGHT:") :].strip()
        return [text_step(text)] if text else []

    def _command(self) -> list[Step]:
        cmd = "\n".join(_unwrap(self.code or [])).strip()
        self.code = None
        if not cmd:
            return []
        step = Step("command", one_line("$ " + cmd), joined([block(cmd)]) if "\n" in cmd else None)
        self.last_command = step
        return [step]

    def _finish(self) -> list[Step]:
        return self._close()
