"""Interactive shells inside a live sandbox (``Sandbox.shell_argv``), for ``--agent human``.

``shell_argv(env)`` returns an argv the caller runs in the **foreground of the real
terminal** (stdin/stdout/stderr inherited, no capture): it opens ``bash`` inside that same
sandbox — same namespaces, mounts, user, cgroup and limits as ``exec`` — with cwd
``/workspace`` and ``env`` (paths as seen inside the sandbox). ``exec`` is unchanged.

- local: ``python tty_relay.py --procs <cgroup.procs>... --fsize N -- bwrap <the exec
  prefix without --new-session> --info-fd N --setenv ... --chdir /workspace setpriv ...
  -- bash``. The relay gives the sandbox a pty of its own (job control works, TIOCSTI
  cannot reach the real terminal: see tty_relay.py).
- docker: ``docker exec -it -u SANDBOX_UID:SANDBOX_UID -w /workspace -e K=V ... <container> sh -c
  '"$@"; kill -9 -1' sh bash`` (``-i`` instead of ``-it`` when stdin is not a terminal, decided at run
  time by a ``sh -c`` wrapper on the host). Docker gives the
  exec a pty of its own. As with ``exec``, every process of the sandbox user is killed
  when the shell ends, so background jobs do not outlive it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from arena.sandbox.base import WORKSPACE, SandboxError

RELAY = Path(__file__).resolve().with_name("tty_relay.py")
SHELL = ["/bin/bash", "--norc", "--noprofile", "-i"]


def _shell_env(env: dict[str, str] | None, sid: str) -> dict[str, str]:
    out = {"TERM": os.environ.get("TERM", "xterm"), "PS1": f"[sandbox {sid[-10:]}] \\w \\$ "}
    out.update(env or {})
    return out


def local_shell_argv(sb, env: dict[str, str] | None = None) -> list[str]:
    if sb.closed:
        raise SandboxError(f"sandbox {sb.id} is closed")
    from arena.sandbox.tty_relay import INFO_FD_ARG  # noqa: PLC0415

    relay = [sys.executable, "-I", str(RELAY)]
    if sb.cg is not None:
        for p in sb.cg.procs_paths():
            relay += ["--procs", os.fsdecode(p)]
    relay += ["--fsize", str(sb.limits.file_mb << 20)]
    if not sb.be.privileged:  # no cgroup: the per-process rlimits exec sets
        relay += ["--as", str(sb.limits.memory_mb << 20), "--nproc", str(sb.limits.pids)]
    cmd = [a for a in sb.shell_prefix if a != "--new-session"]  # the relay makes the session
    cmd += ["--info-fd", INFO_FD_ARG]
    for k, v in _shell_env(env, sb.id).items():
        cmd += ["--setenv", k, v]
    cmd += ["--chdir", WORKSPACE]
    if sb.be.privileged:
        cmd += [
            "/usr/bin/setpriv",
            "--reuid",
            str(sb.uid),
            "--regid",
            str(sb.uid),
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]
    return relay + ["--"] + cmd + SHELL


def docker_shell_argv(sb, env: dict[str, str] | None = None) -> list[str]:
    if sb.closed:
        raise SandboxError(f"sandbox {sb.id} is closed")
    docker = shutil.which("docker")
    if docker is None:
        raise SandboxError("an interactive shell in a docker sandbox needs the docker CLI (`docker` is not on PATH)")
    # -t only when stdin is a terminal (docker refuses -t otherwise): decided when it runs.
    argv = [
        "/bin/sh",
        "-c",
        'if [ -t 0 ]; then t=-it; else t=-i; fi; exec "$0" exec $t "$@"',
        docker,
        "-u",
        f"{sb.uid}:{sb.uid}",
        "-w",
        WORKSPACE,
    ]
    for k, v in _shell_env(env, sb.id).items():
        argv += ["-e", f"{k}={v}"]
    return argv + [sb.container.id, "sh", "-c", '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc', "sh", *SHELL]
