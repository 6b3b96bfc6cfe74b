"""Bandit kept running: one process per arena, so a submission does not pay bandit's start.

``python -m bandit`` per submission spent ~200 ms on interpreter start, imports and
plugin discovery for a few ms of analysis. This module is both sides of a long-lived
bandit process that uses bandit's own library API (``BanditManager``: the same tests,
profile and output fields as ``bandit -f json --ignore-nosec``):

- ``python -m arena.judge.static.bandit_server`` (the server) reads one JSON request per line
  on stdin (``{"cwd": DIR, "files": ["./a.py", ...]}``) and writes one JSON line back
  (``{"results": [...]}``, bandit's JSON ``results`` entries, or ``{"error": "..."}``).
  It exits at end of input, so it never outlives the arena (its stdin is the arena's
  pipe, closed by the kernel when the arena dies, however it dies). It only parses the
  files, as the command line tool does.
- ``BanditServer.query`` (the arena) starts it on first use, sends one request at a time
  and waits at most ``timeout`` for the answer; on a timeout, a broken pipe or garbage it
  kills the server (the next query starts a fresh one) and returns an error.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import threading
import time


def _serve() -> None:
    try:
        from bandit.core import config as b_config  # noqa: PLC0415
        from bandit.core import constants as b_constants  # noqa: PLC0415
        from bandit.core import manager as b_manager  # noqa: PLC0415
    except ImportError as e:  # every request gets the reason
        for _ in sys.stdin:
            sys.stdout.write(json.dumps({"error": f"bandit is not installed ({e})"}) + "\n")
            sys.stdout.flush()
        return
    conf = b_config.BanditConfig()
    for line in sys.stdin:
        try:
            req = json.loads(line)
            files = [str(f) for f in req["files"]]
            os.chdir(str(req["cwd"]))
            mgr = b_manager.BanditManager(conf, "file", quiet=True, ignore_nosec=True)
            mgr.discover_files(files, False, ",".join(b_constants.EXCLUDE))  # the CLI's default
            mgr.run_tests()
            issues = mgr.get_issue_list(sev_level=b_constants.LOW, conf_level=b_constants.LOW)
            out: dict[str, object] = {"results": [i.as_dict(with_code=False) for i in issues]}
        except Exception as e:  # noqa: BLE001 — reported to the arena, never a dead server
            out = {"error": f"{type(e).__name__}: {e}"[:300]}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


class BanditServer:
    def __init__(self, env: dict[str, str], argv: list[str] | None = None):
        self.env = env
        self.argv = argv or [sys.executable, "-m", "arena.judge.static.bandit_server"]
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self.env,
                cwd="/",
            )
        return self.proc

    def start(self) -> None:
        with self.lock:
            self._start()

    def _kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def query(self, cwd: str, files: list[str], timeout: float) -> tuple[list | None, str]:
        """(bandit's JSON results, "") or (None, why not)."""
        with self.lock:
            try:
                proc = self._start()
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write((json.dumps({"cwd": cwd, "files": files}) + "\n").encode())
                proc.stdin.flush()
                line = _read_line(proc.stdout.fileno(), timeout)
            except OSError as e:
                self._kill()
                return None, f"the bandit process failed: {e}"
            if line is None or line == b"":
                self._kill()
                if line is None:
                    return None, f"bandit did not finish in {timeout:g} s"
                return None, "the bandit process exited without an answer"
            try:
                doc = json.loads(line)
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                self._kill()
                return None, "the bandit server's answer was unreadable"
            if isinstance(doc.get("results"), list):
                return doc["results"], ""
            return None, str(doc.get("error", "no results"))

    def close(self) -> None:
        with self.lock:
            self._kill()


def _read_line(fd: int, timeout: float) -> bytes | None:
    """One line from ``fd`` within ``timeout``: None when none came in time, b"" at end
    of file."""
    buf = bytearray()
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b""
            buf += chunk
    return bytes(buf.split(b"\n", 1)[0])


if __name__ == "__main__":
    _serve()
