"""What the browser tests of `gauntlet serve` share (test_serve_browser.py, test_serve_demo.py):
a free port, the server started on a store and waited for until it listens, the server's
session processes (its children), and the check that none is left once it stopped."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import aiohttp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def alive(pids: set[int]) -> list[int]:
    """The ones still running (a zombie is over)."""
    out = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if ") Z" not in stat:
            out.append(pid)
    return out


async def until(predicate, timeout: float, what: str):  # noqa: ANN001
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not (value := predicate()):
        assert loop.time() < end, f"timed out: {what}"
        await asyncio.sleep(0.1)
    return value


@dataclass
class Served:
    proc: subprocess.Popen
    port: int
    token: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def sessions(self) -> set[int]:
        return children(self.proc.pid)

    def stop(self) -> int:
        """SIGTERM, as the operator's ctrl+c; its exit status."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(15)
        finally:
            self.proc.kill()


async def serve(db: Path, *, cwd: Path, env: dict[str, str]) -> Served:
    """``gauntlet serve --store db`` on a free port, once it listens (its operator token read)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gauntlet_tui", "serve", "--port", str(port), "--store", str(db)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "operator:" in line or len(lines) > 40:
                break
        token = lines[-1].split("?token=")[-1].strip() if lines else ""
        assert lines and "operator:" in lines[-1] and token, "".join(lines)
        served = Served(proc, port, token)
        async with aiohttp.ClientSession() as http:
            for _ in range(100):  # it prints its addresses just before it listens
                try:
                    async with http.get(served.base) as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientConnectionError:
                    pass
                await asyncio.sleep(0.05)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return served
