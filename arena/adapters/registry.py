"""The built-in adapters by name: ``names()`` and ``get_adapter(name)``. Below build.py,
inventory.py and the package's ``__init__`` (which re-exports both); imports only the
adapter modules and base.py of arena.adapters."""

from __future__ import annotations

from arena.adapters.base import Adapter
from arena.errors import UsageError


def _registry() -> dict[str, Adapter]:
    from arena.adapters import aider, claude_code, codex, mini_swe_agent, openhands  # noqa: PLC0415

    adapters = (mini_swe_agent.ADAPTER, aider.ADAPTER, codex.ADAPTER, claude_code.ADAPTER, openhands.ADAPTER)
    return {a.name: a for a in adapters}


def names() -> list[str]:
    return sorted(_registry())


def get_adapter(name: str) -> Adapter:
    reg = _registry()
    if name not in reg:
        raise UsageError(f"unknown adapter {name!r}: expected one of {', '.join(sorted(reg))}")
    return reg[name]
