"""The arena's side of the writer process (``store/writer_proc.py``).

Why a process: committing 100,000 events/s costs the database ~8 µs a row, and in a
thread of the arena that work competes with the event loop for one GIL; every hand-over
can wait up to the interpreter's switch interval, and commits fell behind into groups
that waited 100-300 ms (docs/store.md, "Latency"). The process has its own interpreter;
the arena only pickles each group (~0.5 µs a row) and waits for one reply on a pipe.

The process starts with the first write (a store opened only to be read never starts
one). One request is in flight at a time (the batched writer holds the store's lock
around it). If the process dies, the request fails like any write (the group is kept and
retried) and the next request starts a new process.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import sqlite3
import struct
import sys
from pathlib import Path

from store.errors import StoreError

SCRIPT = Path(__file__).with_name("writer_proc.py")
_LEN = struct.Struct(">I")
_REFUSED = {
    "IntegrityError": sqlite3.IntegrityError,
    "InterfaceError": sqlite3.InterfaceError,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "OverflowError": OverflowError,
}


class WriterGone(sqlite3.OperationalError):
    """The writer process exited or stopped answering."""


class WriterProcess:
    def __init__(self, path: Path, busy_ms: int, safety_pages: int) -> None:
        self.path, self._args = path, (str(busy_ms), str(safety_pages))
        self._proc: asyncio.subprocess.Process | None = None
        self._broken = False  # a reply was abandoned midway: the stream is out of step
        self.pid: int | None = None

    async def start(self) -> "WriterProcess":
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-E",
            "-s",
            "-S",
            str(SCRIPT),
            os.path.abspath(self.path),
            *self._args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=1 << 20,
        )
        try:
            reply = await self._read()
        except WriterGone as exc:
            await self._reap()
            raise StoreError(f"{self.path}: the store's writer process did not start ({exc})") from None
        if reply[0] != "ready":
            await self._reap()
            raise StoreError(f"{self.path}: the store's writer process cannot open the store ({reply[2]})")
        self.pid = reply[1]
        return self

    async def running(self) -> "WriterProcess":
        """Start the process unless it is running (a store that is only read never does)."""
        if self._broken or self._proc is None or self._proc.returncode is not None:
            self._kill()
            await self._reap()
            self._broken = False
            await self.start()
        return self

    def _pipes(self) -> tuple[asyncio.StreamWriter, asyncio.StreamReader]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None  # start(): PIPEs
        return proc.stdin, proc.stdout

    async def request(self, *msg: object) -> object:
        """Send one request; return the reply's payload (unpickled) or raise what it reports."""
        await self.running()
        stdin, _ = self._pipes()
        body = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            stdin.write(_LEN.pack(len(body)) + body)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            await self._reap()
            raise WriterGone(f"the store's writer process is gone ({exc})") from None
        except BaseException:
            self._broken = True  # cancelled mid-request: start a new process next time
            raise
        reply = await self._read()
        if reply[0] == "ok":
            return reply[1] if len(reply) > 1 else None
        kind, name, text = reply
        if kind == "refused":
            raise _REFUSED.get(name, sqlite3.IntegrityError)(text)
        raise sqlite3.OperationalError(text)

    async def _read(self) -> tuple:
        try:
            _, stdout = self._pipes()
            head = await stdout.readexactly(_LEN.size)
            return pickle.loads(await stdout.readexactly(_LEN.unpack(head)[0]))
        except (asyncio.IncompleteReadError, ConnectionResetError) as exc:
            await self._reap()
            raise WriterGone(f"the store's writer process exited ({exc})") from None
        except BaseException:
            # Cancelled mid-reply: start a new process next time.
            self._broken = True
            raise

    async def transaction(self, steps: list[tuple[str, list, bool]], full: bool) -> None:
        await self.request("tx", steps, full)

    async def sync(self, now: str) -> None:
        await self.request("sync", now)

    async def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.returncode is None:
            try:
                body = pickle.dumps(("close",))
                stdin, stdout = self._pipes()
                stdin.write(_LEN.pack(len(body)) + body)
                await stdin.drain()
                await asyncio.wait_for(stdout.readexactly(_LEN.size), 10)
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                pass
        await self._reap()

    def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            try:
                self._proc.kill()
            except ProcessLookupError:
                pass

    async def _reap(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        # asyncio leaves an exited process's transport open until it is collected, and
        # closing it then, after its loop has closed, raises "Event loop is closed".
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            transport.close()
