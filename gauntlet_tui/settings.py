"""The TUI's remembered settings: a small JSON file, ``settings.json`` in
``$GAUNTLET_CONFIG_DIR`` (tests) or ``$XDG_CONFIG_HOME/gauntlet`` or ``~/.config/gauntlet``.
A missing or unreadable file means defaults; writing never raises into the UI."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def config_dir() -> Path:
    explicit = os.environ.get("GAUNTLET_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gauntlet"


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load() -> dict[str, Any]:
    path = settings_path()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable settings file %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def save(**changes: Any) -> None:
    data = load()
    data.update(changes)
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        tmp.replace(path)
    except OSError as exc:
        log.warning("could not save settings to %s: %s", path, exc)
