"""Who owns a sandbox's leftovers: every sandbox id, state directory and cgroup name starts
with its arena's pid (``<pid>-<hex>``), so a leftover is stale once that pid is gone. The
lowest room of the sandbox package: ``quota``, ``cleanup`` and ``registry`` import it."""

from __future__ import annotations

import os
from pathlib import Path

STATE_ROOT = Path(os.environ.get("GAUNTLET_SANDBOX_STATE", "/tmp/gauntlet-sandbox"))


def owner_tag() -> str:
    return str(os.getpid())


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_of(sid: str) -> int | None:
    head = sid.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def is_stale(sid: str) -> bool:
    pid = owner_of(sid)
    return pid is None or (pid != os.getpid() and not pid_alive(pid))
