"""arena.gateway — the model gateway of real agents (CONTRACT §8).

- ``Gateway`` (server.py): one per arena process; ``register(attempt, model=, limits=,
  emit=) -> Grant`` opens the attempt's own unix socket and token.
- ``UsageLimits`` / ``Usage`` (limits.py), ``PriceTable`` (prices.py),
  ``read_transcript`` (transcript.py).
- relay.py: the stdlib-only forwarder run inside a sandbox; ``RELAY_PATH`` is its source
  file, to mount read-only, and ``wrap_agent_argv`` starts it in front of the agent.

How an attempt runner uses it::

    gw = Gateway(root=state/"gw", transcript_dir=attempt_dir)    # once per process
    await gw.start()
    grant = gw.register(attempt_id, model="openai/gpt-4.1-mini", limits=limits,
                        emit=lambda kind, data: publish(kind, data))
    mounts = [Mount(grant.socket_dir, SANDBOX_SOCKET_DIR, True),
              Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True)]
    argv = wrap_agent_argv(agent_argv, RELAY_PORT)
    env = grant.sandbox_env(RELAY_PORT)                       # host agents: grant.host_env()
    ... run argv in the sandbox with env ...
    await gw.unregister(attempt_id); gw.usage(attempt_id)
"""

from __future__ import annotations

from pathlib import Path

from arena.gateway.limits import Usage, UsageLimits  # noqa: F401
from arena.gateway.prices import Price, PriceTable  # noqa: F401
from arena.gateway.server import Gateway, Grant, split_model  # noqa: F401
from arena.gateway.transcript import read_transcript  # noqa: F401

__all__ = [
    "Gateway",
    "Grant",
    "Price",
    "PriceTable",
    "Usage",
    "UsageLimits",
    "read_transcript",
    "split_model",
    "relay_command",
    "wrap_agent_argv",
    "RELAY_PATH",
    "RELAY_PORT",
    "SANDBOX_SOCKET_DIR",
    "SANDBOX_SOCKET",
    "SANDBOX_RELAY_DIR",
    "SANDBOX_RELAY",
]

RELAY_PATH = str(Path(__file__).resolve().parent / "relay.py")
SANDBOX_SOCKET_DIR = "/run/gauntlet"  # where grant.socket_dir is mounted in a sandbox
SANDBOX_SOCKET = f"{SANDBOX_SOCKET_DIR}/gateway.sock"
SANDBOX_RELAY_DIR = "/opt/gauntlet/gw"  # where RELAY_PATH's directory is mounted
SANDBOX_RELAY = f"{SANDBOX_RELAY_DIR}/relay.py"
RELAY_PORT = 4000  # the relay's port on the sandbox's own loopback


def relay_command(
    port: int = RELAY_PORT,
    socket_path_in_sandbox: str = SANDBOX_SOCKET,
    *,
    relay: str = SANDBOX_RELAY,
    python: str = "python3",
) -> list[str]:
    """The argv of a foreground relay inside the sandbox."""
    return [python, relay, "--port", str(port), "--unix", socket_path_in_sandbox]


def wrap_agent_argv(
    agent_argv: list[str],
    port: int = RELAY_PORT,
    sock: str = SANDBOX_SOCKET,
    *,
    relay: str = SANDBOX_RELAY,
    python: str = "python3",
) -> list[str]:
    """One argv that starts the relay (listening before the agent starts) and then execs
    ``agent_argv`` in the same process, so the agent keeps its pid, output and exit code."""
    if not agent_argv:
        raise ValueError("wrap_agent_argv needs the agent's argv")
    return [*relay_command(port, sock, relay=relay, python=python), "--", *agent_argv]
