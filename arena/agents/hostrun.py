"""How an agent with ``where: host`` runs: unsandboxed, but not as the arena.

The operator trusts a host agent (it has the host's network and file system), yet it must
not read what the judge keeps from every agent. So the process runs:

- as an unprivileged uid of the attempt's own (``reserve_uid``: the local sandboxes' pool,
  ``quota.allocate_uid``), named ``gauntlet`` in the ``/etc/passwd`` it sees, with no
  supplementary groups and ``no_new_privs``, so root-only files (``/etc/shadow``, ``/root``)
  are out of reach, and so is another host attempt's agent (no PID namespace: with one
  shared uid, it could read the other's ``/proc/<pid>/environ``, its gateway token, and
  reach its agent socket through ``/proc/<pid>/root``; issue 26). ``release_uid`` kills
  whatever still runs as the uid and frees it when the attempt ends;
- with a cleared environment: ``GAUNTLET_*``, ``PATH``, ``HOME``, ``LANG`` and what the
  attempt adds (the gateway's per-attempt URL and token), never the arena's own variables
  (the host's model keys among them);
- in a mount namespace of its own (bubblewrap, ``--dev-bind / /``) where the challenge
  package, the store's data directory (other attempts' workspaces, snapshots, published
  challenges) and the store file are covered by empty tmpfs mounts, ``/tmp`` is a private
  tmpfs (so every attempt's agent socket is out of reach), so are ``/dev/shm``, ``/var/tmp``
  and ``/run/lock`` (nothing it leaves there outlives it: ``reach.py``, which also hides other
  copies of the bundled packages and other stores it could read), and only its own workspace and
  agent directory are bound back, at ``/tmp/gauntlet/workspace`` and ``/tmp/gauntlet/agent``
  (their host paths may lie under directories the unprivileged uid cannot traverse).

Without bubblewrap (or without root) the agent still runs, with the cleared environment,
and ``isolation`` says what was not hidden; the scorecard flags every host attempt
``unsandboxed_agent`` either way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from arena.agents import reach

HOST_AGENT_UID = 65534  # only when a caller names no uid of the attempt's own
HOST_PATH = "/usr/local/bin:/usr/bin:/bin"


VIEW_WORKSPACE = "/tmp/gauntlet/workspace"
VIEW_AGENT_DIR = "/tmp/gauntlet/agent"
# The MCP tree for a host agent with ``mcp: true``: inside the private /tmp, so that bwrap makes
# its mount point there, never on the host's file system (as it would under a missing /opt/...).
VIEW_MCP = "/tmp/gauntlet/mcp"


@dataclass
class HostView:
    """Where the host agent sees its workspace and agent directory."""

    isolated: bool
    workspace: str
    agent_dir: str

    def path(self, host_path: str, workspace: Path, agent_dir: Path) -> str:
        """A host path of the workspace or agent directory, as the agent sees it."""
        for real, seen in ((str(workspace), self.workspace), (str(agent_dir), self.agent_dir)):
            if host_path == real or host_path.startswith(real + "/"):
                return seen + host_path[len(real) :]
        return host_path


@dataclass
class HostPlan:
    argv: list[str]
    env: dict[str, str]
    isolation: list[str] = field(default_factory=list)  # what is and is not done
    fds: list[int] = field(default_factory=list)  # to pass to the process, closed by the caller after


def reserve_uid() -> tuple[int, str]:
    """``(uid, reservation id)``: a uid of the attempt's own from the sandboxes' pool,
    reserved by this arena's pid (a stale one is reused); a leftover of a crashed arena
    still running as it is killed first."""
    from arena.sandbox import owners, quota  # noqa: PLC0415

    sid = f"{owners.owner_tag()}-host-{os.urandom(5).hex()}"
    uid = quota.allocate_uid(sid)
    _kill_uid(uid)
    reach.sweep_uid(uid)
    return uid, sid


def release_uid(uid: int, sid: str) -> None:
    """Kill every process still running as ``uid`` (a daemon the agent left) and free it."""
    from arena.sandbox import quota  # noqa: PLC0415

    _kill_uid(uid)
    reach.sweep_uid(uid)  # what it left in the host's shared directories (none, in its private view)
    quota.free_uid(uid, sid)


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid`` (a pool uid only): ``kill(-1)`` sent as that uid,
    atomic against forks."""
    from arena.sandbox.quota import UID_BASE, UID_COUNT  # noqa: PLC0415

    setpriv, kill = shutil.which("setpriv"), shutil.which("kill")
    if os.geteuid() == 0 and setpriv and kill and UID_BASE <= uid < UID_BASE + UID_COUNT:
        ids = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        subprocess.run([setpriv, *ids, kill, "-KILL", "--", "-1"], capture_output=True, timeout=30)


def view(workspace: Path, agent_dir: Path) -> HostView:
    if os.geteuid() == 0 and shutil.which("bwrap"):
        return HostView(True, VIEW_WORKSPACE, VIEW_AGENT_DIR)
    return HostView(False, str(workspace), str(agent_dir))


def plan(
    argv: list[str],
    *,
    workspace: Path,
    agent_dir: Path,
    hide: list[Path],
    env: dict[str, str],
    binds: Sequence[tuple[Path, str]] = (),
    uid: int | None = None,
) -> HostPlan:
    """The argv and environment of a host agent (see the module docstring); ``argv`` and
    ``env`` already name paths as ``view()`` says the agent sees them. ``binds`` are extra
    read-only ``(host path, target)`` mounts (an adapter's tree); ``uid`` the attempt's own
    (``reserve_uid``). The caller passes ``fds`` to the process and closes them."""
    uid = HOST_AGENT_UID if uid is None else uid
    seen = view(workspace, agent_dir)
    base_path = env.get("PATH", "")
    run_env = {
        "PATH": f"{base_path}:{HOST_PATH}" if base_path else HOST_PATH,
        "HOME": seen.workspace,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
    }
    run_env.update({k: v for k, v in env.items() if k != "PATH"})
    notes: list[str] = ["environment cleared"]
    if not seen.isolated:
        why = "not root" if os.geteuid() != 0 else "bubblewrap is not installed"
        notes.append(f"runs as the arena's user with the host's file system ({why})")
        return HostPlan(list(argv), run_env, notes)
    pre = [shutil.which("bwrap") or "bwrap", "--dev-bind", "/", "/", "--die-with-parent"]
    near = [h.parent for h in hide if h.is_file()]  # the store's directory: other stores beside it
    hide = [*hide, *reach.exposed(uid, [*hide, Path("/tmp")], near)]  # other bundled copies and stores it could read
    # (/tmp is private below: nothing there needs a mount of its own)
    for h in _outermost(hide):
        if h.exists():
            pre += ["--tmpfs", str(h)] if h.is_dir() else ["--ro-bind", "/dev/null", str(h)]
    pre += reach.private_dir_args()  # /dev/shm, /var/tmp, /run/lock and IPC: gone with the agent
    pre += [
        "--tmpfs",
        "/tmp",
        "--dir",
        "/tmp/gauntlet",
        "--bind",
        str(workspace),
        seen.workspace,
        "--ro-bind",
        str(agent_dir),
        seen.agent_dir,
    ]
    for host, target in binds:
        pre += ["--ro-bind", str(host), target]
    fds = _named(uid, seen.workspace)
    for name, fd in zip(("passwd", "group"), fds):
        pre += ["--perms", "0644", "--ro-bind-data", str(fd), f"/etc/{name}"]
    pre += ["--chdir", seen.workspace]
    drop = [
        shutil.which("setpriv") or "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--",
    ]
    notes.append(f"uid {uid}; hidden: {', '.join(str(h) for h in _outermost(hide))}")
    return HostPlan([*pre, *drop, *argv], run_env, notes, fds)


def _named(uid: int, home: str) -> list[int]:
    """The host's /etc/passwd and /etc/group plus a ``gauntlet`` entry for ``uid`` (tools
    look their user up: git, node's ``os.userInfo``), as two memfds for ``--ro-bind-data``."""
    out = []
    for name, line in (("passwd", f"gauntlet:x:{uid}:{uid}::{home}:/bin/sh"), ("group", f"gauntlet:x:{uid}:")):
        try:
            text = Path("/etc", name).read_bytes().rstrip(b"\n")
        except OSError:
            text = b""
        fd = os.memfd_create(f"gauntlet-{name}")
        with open(fd, "wb", closefd=False) as f:
            f.write(text + f"\n{line}\n".encode())
        os.lseek(fd, 0, os.SEEK_SET)
        out.append(fd)
    return out


def _outermost(paths: list[Path]) -> list[Path]:
    """The paths none of whose ancestors is also listed (a tmpfs over a parent hides all)."""
    rs = sorted({Path(os.path.abspath(p)) for p in paths}, key=lambda p: len(p.parts))
    out: list[Path] = []
    for p in rs:
        if not any(p == o or o in p.parents for o in out):
            out.append(p)
    return out


def give_workspace(workspace: Path, uid: int) -> None:
    """Make the workspace the host agent's own (it runs as ``uid``); links are chowned as
    links, never followed."""
    for dirpath, dirnames, filenames in os.walk(workspace, followlinks=False):
        for name in [*dirnames, *filenames]:
            os.lchown(os.path.join(dirpath, name), uid, uid)
    os.lchown(workspace, uid, uid)
