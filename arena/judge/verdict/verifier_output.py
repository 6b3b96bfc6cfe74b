"""What a verifier run as written (an imported task's ``test.sh``) printed, kept with its
verdict (issue 37: a failed verifier says why).

- ``kept(out_dir, stdout, stderr)``: the last ``KEEP_BYTES`` of its output: the file the
  judge command sent it to (``test-output.txt`` in the run's output directory, as the
  Terminal-Bench command does), else its standard output then its standard error. Stored
  as ``JudgeResult.verifier_output`` (redacted like every feedback field; shown by
  ``gauntlet show``), never followed through a link, never read whole.
- ``attach(cases, output)``: its last lines appended to the message of each failed
  ``reward`` test (a reward file's one verdict), so the feedback the format discloses
  (failure messages) says why; CTRF tests keep their own messages.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from arena.judge.verdict.junit import MAX_MESSAGE_CHARS, MAX_MESSAGE_LINES, RawCase, regular_file

KEEP_BYTES = 8192
OUTPUT_FILE = "test-output.txt"
TAIL_LINES = MAX_MESSAGE_LINES - 2  # the reward line and the heading
TAIL_HEADING = "verifier output, last lines:"
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def _tail_file(path: Path, cap: int) -> bytes | None:
    with regular_file(path) as got:
        if got is None:
            return None
        fd, st = got
        os.lseek(fd, max(0, st.st_size - cap), os.SEEK_SET)
        return os.read(fd, cap)


def kept(out_dir: Path, stdout: bytes | None, stderr: bytes | None, cap: int = KEEP_BYTES) -> str:
    """The last ``cap`` bytes of the verifier's output, as text without control sequences."""
    data = _tail_file(out_dir / OUTPUT_FILE, cap)
    if not data:
        data = (stdout or b"").rstrip(b"\n") + (b"\n" if stdout and stderr else b"") + (stderr or b"")
    text = data[-cap:].decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text.replace("\t", "    "))
    return text.strip("\n")


def tail(output: str) -> str:
    """The last non-empty lines of ``output`` that fit a test message beside its first line."""
    lines = [ln.rstrip() for ln in output.splitlines() if ln.strip()][-TAIL_LINES:]
    room = MAX_MESSAGE_CHARS - 80 - len(TAIL_HEADING)
    while lines and sum(len(ln) + 1 for ln in lines) > room:
        if len(lines) == 1:
            lines[0] = "..." + lines[0][-(room - 3) :]
            break
        lines.pop(0)
    return "\n".join(lines)


def attach(cases: list[RawCase] | None, output: str) -> None:
    """Append the output's tail to every failed ``reward`` test's message (in place)."""
    last = tail(output)
    if not last:
        return
    for c in cases or []:
        if c.classname == "reward" and c.outcome != "passed":
            c.message = f"{c.message.splitlines()[0] if c.message else 'failed'}\n{TAIL_HEADING}\n{last}"


def with_tail(text: str, output: str) -> str:
    """``text`` (a build error) with the output's tail."""
    last = tail(output)
    return f"{text}; {TAIL_HEADING}\n{last}" if last else text
