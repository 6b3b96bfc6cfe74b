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
        if (not self._fired and self.on_overflow is not None
                and self.seen > self.cap * OVERFLOW_KILL_FACTOR):
            self._fired = True
            self.on_overflow()

    def value(self) -> bytes:
        return b"".join(self.parts)


async def drain(stream: asyncio.StreamReader, buf: CappedBuffer) -> None:
    while True:
        chunk = await stream.read(1 << 16)
        if not chunk:
            return
        buf.feed(chunk)
