"""Reading a YAML mapping from a package file, each failure one clear message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from arena.challenge.errors import ChallengeError, error


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key written twice in one mapping (typo protection)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
        except TypeError:  # unhashable key: let the normal constructor complain
            break
        if duplicate:
            raise yaml.constructor.ConstructorError(None, None, f"key {key!r} is written twice", key_node.start_mark)
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_text(path: Path, rel: str, check: str, what: str) -> str:
    """UTF-8 text of a package file, or ChallengeError naming the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ChallengeError([error(check, f"{rel}: required file missing: expected {what}")]) from None
    except IsADirectoryError:
        raise ChallengeError([error(check, f"{rel}: is a directory: expected {what}")]) from None
    except OSError as exc:
        raise ChallengeError([error(check, f"{rel}: cannot be read ({exc.strerror}): expected {what}")]) from None
    if b"\x00" in data:
        raise ChallengeError([error(check, f"{rel}: binary content: expected {what}")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ChallengeError([error(check, f"{rel}: not UTF-8 text (byte {exc.start}): expected {what}")]) from None


MAX_BYTES = 1024 * 1024  # a manifest or agent file is a few KB; refuse giants
MAX_ALIASES = 100  # YAML aliases can expand exponentially ("billion laughs")


def _count_aliases(text: str) -> int:
    return sum(isinstance(ev, yaml.AliasEvent) for ev in yaml.parse(text, Loader=yaml.SafeLoader))


def load_mapping(path: Path, rel: str, check: str, what: str) -> dict[str, Any]:
    """The YAML mapping in ``path``; ``rel`` is how messages name the file."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > MAX_BYTES:
        raise ChallengeError([error(check, f"{rel}: {size} bytes: expected {what} under {MAX_BYTES // 1024} KB")])
    text = read_text(path, rel, check, what)
    try:
        if "*" in text and _count_aliases(text) > MAX_ALIASES:
            raise ChallengeError(
                [
                    error(
                        check,
                        f"{rel}: more than {MAX_ALIASES} YAML aliases: expected {what} without alias expansion tricks",
                    )
                ]
            )
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 — a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "syntax error"
        raise ChallengeError([error(check, f"{rel}: unreadable YAML{where}: {problem}: expected {what}")]) from None
    except yaml.YAMLError as exc:
        raise ChallengeError([error(check, f"{rel}: unreadable YAML ({exc}): expected {what}")]) from None
    if data is None:
        raise ChallengeError([error(check, f"{rel}: empty file: expected {what}")])
    if not isinstance(data, dict):
        got = "a list" if isinstance(data, list) else f"a {type(data).__name__} ({str(data)[:40]!r})"
        raise ChallengeError([error(check, f"{rel}: top level is {got}: expected {what}")])
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ChallengeError([error(check, f"{rel}: key {bad[0]!r} is not a string: expected {what} with text keys")])
    return data
