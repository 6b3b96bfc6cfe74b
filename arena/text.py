"""Strings from an agent, made safe to store and to show.

File names are bytes: Python hands undecodable ones over surrogate-escaped
(``os.fsdecode``), which no UTF-8 store or terminal accepts. ``path_fields`` keeps such
a name losslessly as a printable form plus ``path_b64`` (the raw bytes). ``printable``
is the one filter at every edge where agent text reaches a terminal, the TUI or a
report: terminal control sequences (CSI, OSC, other ESC sequences) are removed, other
control characters shown as ``?``, undecodable bytes as ``\\xNN``.
"""

from __future__ import annotations

import base64
import os
import re

# ESC [ ... final | ESC ] ... (BEL | ESC \\) | ESC P/X/^/_ ... ESC \\ | ESC + one char; C1 CSI/OSC too
_SEQ = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CTRL_NL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _unescape_surrogates(s: str) -> str:
    try:
        raw = s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # lone surrogates not from surrogateescape
        return s.encode("utf-8", "backslashreplace").decode("ascii")
    return raw.decode("utf-8", "backslashreplace")


def printable(s: object, *, newlines: bool = True) -> str:
    """``s`` as text safe for a terminal: no control sequences, no surrogates.
    ``newlines=False`` also turns newlines and tabs into ``?`` (one-line fields)."""
    text = s if isinstance(s, str) else str(s)
    text = _unescape_surrogates(text)
    text = _SEQ.sub("", text)
    return (_CTRL if newlines else _CTRL_NL).sub("?", text)


def escaped(s: object) -> str:
    """``s`` on one line with every control character *shown* as ``\\xNN`` (ESC, BEL,
    newlines, C1) and undecodable bytes as ``\\xNN``: names are data, never sequences the
    terminal would obey (the ``--headless`` output, issue 26)."""
    text = _unescape_surrogates(s if isinstance(s, str) else str(s))
    return _CTRL_NL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def path_fields(rel: str, key: str = "path") -> dict[str, str]:
    """``{key: printable form}``, plus ``{key}_b64`` (the name's raw bytes) whenever the
    printable form is not the name itself, so any name a file system allows is kept."""
    shown = printable(rel, newlines=False)
    if shown == rel:
        return {key: rel}
    return {key: shown, f"{key}_b64": base64.b64encode(os.fsencode(rel)).decode("ascii")}


def path_from_fields(data: dict, key: str = "path") -> str:
    """The original (surrogate-escaped) name from ``path_fields``' output."""
    b64 = data.get(f"{key}_b64")
    return os.fsdecode(base64.b64decode(b64)) if b64 else data[key]


__all__ = ["path_fields", "path_from_fields", "printable"]
