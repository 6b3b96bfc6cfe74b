"""aider's plain output (``--no-pretty``) as steps.

Before the first reply aider names its files (``Added F to the chat.``: read steps). A
reply is the model's prose (a text step) and SEARCH/REPLACE blocks under a file name; each
``Applied edit to F`` is an edit step ``F +a −r`` (the lines of the blocks for F). With
``--auto-test`` aider then runs its test command (the adapter's ``gauntlet-submit-check``,
a submission): its output is one command step, until ``Added N lines of output to the
chat.`` hands it back to the model. ``Tokens: …`` ends a reply; aider's own errors (an edit
that did not match, the model API failing) are error steps.
"""

from __future__ import annotations

import re

from arena.steps.base import Step, StepParser, one_line, text_step

_ADDED = re.compile(r"^Added (.+?) to the chat( \(read-only\))?\.?$")
_APPLIED = re.compile(r"^Applied edit to (.+)$")
_OUTPUT_BACK = re.compile(r"^Added \d+ lines? of output to the chat\.$")
_RUNNING = re.compile(r"^Running (.+)$")
_BANNER = ("Aider v", "Model:", "Git repo:", "Repo-map:", "Analytics", "Detected dumb terminal", "Main model:",
           "Weak model:", "Editor model:", "Warning:", "Cost estimates")  # fmt: skip
_ERRORS = ("The LLM did not conform", "litellm.", "Unable to ", "Exception while", "Traceback", "Error:",
           "Only 3 reflections", "Model ", "Retrying")  # fmt: skip
_FAILED_BLOCKS = re.compile(r"^# \d+ SEARCH/REPLACE blocks? failed to match")
TEST_COMMAND = "gauntlet-submit-check"  # the adapter's --test-cmd (arena/adapters/aider.py)
_MAX_LINES = 400


def _is_path(line: str) -> bool:
    s = line.strip().strip("`*")
    return bool(s) and " " not in s and len(s) < 300 and ("." in s or "/" in s)


class AiderParser(StepParser):
    name = "aider"

    def __init__(self) -> None:
        super().__init__()
        self.state = "banner"  # banner | reply | test
        self.prose: list[str] = []
        self.said = False  # the reply's text step was given
        self.fence = False
        self.part = ""  # "search" | "replace" | "" inside a fence
        self.path = ""  # the file the blocks being read are for
        self.counts: dict[str, list[int]] = {}  # path -> [added, removed] in this reply

    def _feed(self, stream: str, line: str, now: float | None) -> list[Step]:
        line = line[:4000]
        s = line.strip()
        if self.state == "test":
            if _OUTPUT_BACK.match(s):
                self.state = "reply"
                self._new_reply()
            return []
        m = _APPLIED.match(s)
        if m:
            out = self._say()
            path = m.group(1).strip()
            a, r = self.counts.pop(path, [0, 0])
            out.append(Step("edit", one_line(f"{path} +{a} −{r}" if a or r else path)))
            self.state = "applied"
            return out
        if self.state == "applied" and s:  # the first line after the edits: the auto-test's output
            self.state = "test"
            return [Step("command", one_line(f"$ {TEST_COMMAND} (aider's --auto-test)"))]
        if self.state == "banner":
            m = _ADDED.match(s)
            if m:
                return [Step("read", one_line(m.group(1) + (" (read-only)" if m.group(2) else "")))]
            if not s or s.startswith(_BANNER):
                return []
            self.state = "reply"
            self._new_reply()
        return self._reply(line, s, now)

    def _new_reply(self) -> None:
        self.prose, self.said, self.fence, self.part, self.path = [], False, False, "", ""
        self.counts = {}

    def _reply(self, line: str, s: str, now: float | None) -> list[Step]:
        if s.startswith("Tokens:") and " sent" in s:
            out = self._say()
            self.fence = False
            return out
        if _FAILED_BLOCKS.match(s) or s.startswith(_ERRORS):
            return self._say() + [Step("error", one_line(s))]
        m = _RUNNING.match(s)
        if m and not self.fence:
            return self._say() + [Step("command", one_line("$ " + m.group(1)))]
        if s.startswith("```"):
            if not self.fence and self.prose and _is_path(self.prose[-1]):
                self.path = self.prose.pop().strip().strip("`*")
            out = self._say()
            self.fence = not self.fence
            self.part = ""
            return out
        if self.fence or s.startswith("<<<<<<< SEARCH"):
            self._block(s)
            return []
        if not self.said and len(self.prose) < _MAX_LINES:
            self.prose.append(line)
        return []

    def _block(self, s: str) -> None:
        if s.startswith("<<<<<<< SEARCH"):
            if not self.fence and self.prose and _is_path(self.prose[-1]):
                self.path = self.prose.pop().strip().strip("`*")
            self.part = "search"
        elif s == "=======" and self.part == "search":
            self.part = "replace"
        elif s.startswith(">>>>>>> REPLACE"):
            self.part = ""
        elif self.part and self.path:
            c = self.counts.setdefault(self.path, [0, 0])
            c[0 if self.part == "replace" else 1] += 1

    def _say(self) -> list[Step]:
        if self.said:
            return []
        text = "\n".join(self.prose).strip()
        self.prose = []
        if not text:
            return []
        self.said = True
        return [text_step(text)]

    def _finish(self) -> list[Step]:
        return self._say() if self.state == "reply" else []
