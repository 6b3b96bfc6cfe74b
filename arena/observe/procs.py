"""One observer per arena process, watching many sandboxes at once (the arena's side).

``ProcessObserver`` starts ``observer_proc.py`` (a standard-library process of its own,
see there) and routes what it reports to each watch's callbacks, on the asyncio loop::

    obs = ProcessObserver(); await obs.start()
    await obs.watch(key, target, on_command=..., on_read=..., workspace=Path(...))
    ...                         # each program: on_command({argv, exit_code, duration_s,
    await obs.sync()            #   pid, observed: True, nspid, start}); each read:
    await obs.unwatch(key)      #   on_read({path, pid, observed: True})
    await obs.close()

``sync()`` and ``unwatch()`` return once every event the kernel queued before the call
has been delivered. Without root (or without the kernel features) ``start()`` still
succeeds: ``available`` / ``reads_available`` say what works and ``notes`` why not.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from arena.observe.target import ObserveTarget

SCRIPT = Path(__file__).with_name("observer_proc.py")
Callback = Callable[[dict[str, Any]], None]


@dataclass
class _Watch:
    on_command: Callback | None
    on_read: Callback | None = None


@dataclass
class ProcessObserver:
    available: bool = False  # programs executed are observed
    reads_available: bool = False  # workspace reads are observed
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._proc: asyncio.subprocess.Process | None = None
        self._watches: dict[str, _Watch] = {}
        self._waiters: dict[int, asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._reader: asyncio.Task | None = None
        self.on_note: Callable[[str], None] | None = None

    async def start(self) -> "ProcessObserver":
        if self._proc is not None:
            return self
        if os.geteuid() != 0:
            self.notes.append(
                "observation needs root (process events connector, fanotify): "
                "programs and reads in sandboxes are not observed"
            )
            return self
        try:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-E",
                "-s",
                "-S",
                str(SCRIPT),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                start_new_session=True,
                limit=1 << 22,
            )
            assert self._proc.stdout is not None  # stdout=PIPE
            ready = json.loads(await asyncio.wait_for(self._proc.stdout.readline(), 10))
        except (OSError, asyncio.TimeoutError, ValueError) as exc:
            self.notes.append(f"observer process did not start: {exc!r}")
            await self._kill()
            return self
        self.available, self.reads_available = bool(ready["procs"]), bool(ready["reads"])
        self.notes += list(ready.get("notes") or [])
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())
        return self

    async def _read_loop(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                break
            msg = json.loads(line)
            op = msg.pop("op")
            if op == "done":
                fut = self._waiters.pop(msg["id"], None)
                if fut is not None and not fut.done():
                    fut.set_result(None)
            elif op == "note":
                self.notes.append(msg["text"])
                if self.on_note is not None:
                    self.on_note(msg["text"])
            else:
                w = self._watches.get(msg.pop("key"))
                cb = None if w is None else (w.on_command if op == "cmd" else w.on_read)
                if cb is not None:
                    msg["observed"] = True
                    try:
                        cb(msg)
                    except Exception as exc:  # noqa: BLE001 — one callback never stops the others
                        self.notes.append(f"observer callback failed: {exc!r}")
        for fut in self._waiters.values():  # the process died: nobody waits forever
            if not fut.done():
                fut.set_result(None)
        self._waiters.clear()
        self.available = self.reads_available = False

    def _send(self, msg: dict[str, Any]) -> None:
        if self._proc is None or self._proc.stdin is None or self._proc.returncode is not None:
            return
        self._proc.stdin.write((json.dumps(msg) + "\n").encode())

    async def _request(self, msg: dict[str, Any], timeout: float = 10.0) -> None:
        if self._proc is None or self._reader is None or self._reader.done():
            return
        rid = next(self._ids)
        fut = asyncio.get_running_loop().create_future()
        self._waiters[rid] = fut
        self._send({**msg, "id": rid})
        try:
            await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            self._waiters.pop(rid, None)
            self.notes.append(f"observer did not answer {msg['op']} in {timeout:g}s")

    async def watch(
        self,
        key: str,
        target: ObserveTarget,
        on_command: Callback | None,
        *,
        on_read: Callback | None = None,
        workspace: Path | None = None,
    ) -> str:
        if key in self._watches:
            raise ValueError(f"observer: key {key!r} is already watched")
        self._watches[key] = _Watch(on_command, on_read)
        self._send(
            {
                "op": "watch",
                "key": key,
                "root_pid": target.root_pid,
                "cgroup": target.cgroup,
                "uid": target.uid,
                "skip": [list(p) for p in target.skip],
                "workspace": str(workspace) if workspace and on_read else None,
            }
        )
        await self.sync()  # marks are in place once this returns
        return key

    async def sync(self) -> None:
        await self._request({"op": "sync"})

    async def unwatch(self, key: str) -> None:
        if key not in self._watches:
            return
        await self._request({"op": "unwatch", "key": key})
        self._watches.pop(key, None)

    async def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            await self._proc.wait()

    async def close(self) -> None:
        if self._proc is None:
            return
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            await asyncio.wait_for(self._proc.wait(), 5)
        except asyncio.TimeoutError:
            await self._kill()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        self._proc = None
