"""Play it yourself: hand the real terminal to a shell inside the attempt's sandbox.

``open_shell(app, command)`` suspends the app and runs ``command.argv`` (from
``LiveHandle.shell_command()``: the sandbox's ``shell_argv``) in the foreground of the
terminal, **awaiting** it with ``asyncio.create_subprocess_exec``: the app's event loop —
which also runs the attempt (clock marks, the agent socket, judgements) — keeps running
while the person types, so ``gauntlet-agent submit`` in the shell is answered and a cutoff
still happens on time. Nothing is drawn meanwhile (a batch holds every repaint: the
driver's writer is stopped while suspended, writes would pile up and block the loop).

``launch`` is the process launcher; tests replace it, because a headless pilot has no
terminal to hand over.
"""

from __future__ import annotations

import asyncio
from typing import Any

from gauntlet_tui.live import ShellCommand


async def launch(command: ShellCommand, *, stdin: Any = None, stdout: Any = None) -> int:
    """Run the shell with the terminal's stdin/stdout/stderr (tests pass files); its exit
    status. Awaited, so the event loop keeps running while the shell is open."""
    proc = await asyncio.create_subprocess_exec(
        *command.argv, cwd=str(command.cwd), env=command.env, stdin=stdin, stdout=stdout, stderr=stdout
    )
    try:
        return await proc.wait()
    except asyncio.CancelledError:  # the app is closing under the shell
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise


def banner(command: ShellCommand) -> str:
    lines = [
        f"Gauntlet: a shell {command.where}, in {command.shown_cwd}.",
        "`gauntlet-agent status` / `briefing` / `feedback` work here; the clock keeps running."
        if command.sandboxed
        else "`gauntlet agent status` works here; the clock keeps running.",
        "Exit the shell (exit or Ctrl-D) to return, then press u to submit.",
    ]
    if command.warning:
        lines.insert(0, f"WARNING: {command.warning}")
    return "\n".join(lines)


async def open_shell(app: Any, command: ShellCommand) -> int:
    with app.batch_update():
        with app.suspend():
            print(banner(command), flush=True)
            rc = await launch(command)
    app.refresh(layout=True)
    return rc
