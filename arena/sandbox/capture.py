"""Reading a sandboxed process's output with a cap (shared by the backends)."""

from __future__ import annotations

import asyncio
from typing import Callable

# Past the cap output is drained and discarded; past this many times the cap the
# process tree is killed (endless output must not spin the host until the timeout).
OVERFLOW_KILL_FACTOR = 8


class CappedBuffer:
    def __init__(self, cap: int, on_overflow: Callable[[], None] | None = None):
        self.cap = cap
        self.parts: list[bytes] = []
        self.kept = 0
        self.seen = 0
        self.on_overflow = on_overflow
        self._fired = False

    @property
    def truncated(self) -> bool:
        return self.seen > self.kept

    def feed(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        room = self.cap - self.kept
        if room > 0:
            part = chunk[:room]
            self.parts.append(part)
            self.kept += len(part)
        if not self._fired and self.on_overflow is not None and self.seen > self.cap * OVERFLOW_KILL_FACTOR:
            self._fired = True
            self.on_overflow()

    def value(self) -> bytes:
        return b"".join(self.parts)


class LineSplitter:
    """Calls ``on_line(name, line)`` for each complete line fed (no newline; a line over
    ``max_line`` bytes is passed in pieces), the unterminated rest at ``flush``."""

    def __init__(self, name: str, on_line: Callable[[str, str], None], max_line: int = 1 << 16):
        self.name, self.on_line, self.max_line = name, on_line, max_line
        self.rest = b""

    def feed(self, chunk: bytes) -> None:
        data = self.rest + chunk
        *lines, self.rest = data.split(b"\n")
        while len(self.rest) > self.max_line:
            lines.append(self.rest[: self.max_line])
            self.rest = self.rest[self.max_line :]
        for line in lines:
            self.on_line(self.name, line.decode("utf-8", "replace"))

    def flush(self) -> None:
        if self.rest:
            rest, self.rest = self.rest, b""
            self.on_line(self.name, rest.decode("utf-8", "replace"))


async def drain(stream: asyncio.StreamReader, buf: CappedBuffer, lines: LineSplitter | None = None) -> None:
    while True:
        chunk = await stream.read(1 << 16)
        if not chunk:
            if lines is not None:
                lines.flush()
            return
        buf.feed(chunk)
        if lines is not None:
            lines.feed(chunk)
