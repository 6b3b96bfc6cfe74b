"""Parsing of the manifest's time values (``90s``, ``15m``, ``1h30m``) and sizes (``512m``)."""

from __future__ import annotations

import re

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]?)b?$", re.IGNORECASE)
_SIZE_MB = {"k": 1 / 1024, "m": 1.0, "g": 1024.0, "t": 1024.0 * 1024.0}

DURATION_EXPECTED = "a time like 90s, 15m or 1h30m"
SIZE_EXPECTED = "a size like 512m or 2g"


def parse_duration(value: object) -> float:
    """Seconds from ``90s``, ``15m``, ``1h30m``, ``1h 30m 10s`` or a bare number of seconds.

    Raises ``ValueError`` with an "expected ..." message on anything else (including
    zero or negative durations, booleans and empty strings).
    """
    if isinstance(value, bool):
        raise ValueError(f"expected {DURATION_EXPECTED}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        m = _DURATION.match(text)
        if not text or m is None or not any(m.groups()):
            raise ValueError(f"expected {DURATION_EXPECTED}")
        h, mi, s = (float(g) if g else 0.0 for g in m.groups())
        seconds = h * 3600 + mi * 60 + s
    else:
        raise ValueError(f"expected {DURATION_EXPECTED}")
    if not seconds > 0:
        raise ValueError(f"expected {DURATION_EXPECTED}, greater than zero")
    return seconds


def parse_size_mb(value: object) -> float:
    """Megabytes from ``512m``, ``2g``, ``524288k``; a bare number is megabytes."""
    if isinstance(value, bool):
        raise ValueError(f"expected {SIZE_EXPECTED}")
    if isinstance(value, (int, float)):
        mb = float(value)
    elif isinstance(value, str):
        m = _SIZE.match(value.strip())
        if m is None:
            raise ValueError(f"expected {SIZE_EXPECTED}")
        mb = float(m.group(1)) * _SIZE_MB.get(m.group(2).lower(), 1.0)
    else:
        raise ValueError(f"expected {SIZE_EXPECTED}")
    if not mb > 0:
        raise ValueError(f"expected {SIZE_EXPECTED}, greater than zero")
    return mb


def format_duration(seconds: float) -> str:
    """The short form back: 5400 -> ``1h30m``, 90 -> ``1m30s``."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{sec}s" if sec else "")
    return out or "0s"
