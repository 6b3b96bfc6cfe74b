"""Safe JUnit XML parsing.

The report is written by code running beside the submission, so it is hostile
input: a document type declaration or entity declaration is refused before and
during parsing (no billion-laughs expansion, no external entities), the file size
is capped, and messages are capped. Parsing is done with expat directly, with
handlers that abort on any DOCTYPE or ENTITY declaration whatever the encoding.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.parsers import expat

from arena.results import Outcome

MAX_REPORT_BYTES = 8 * 1024 * 1024
MAX_MESSAGE_CHARS = 600
MAX_MESSAGE_LINES = 8

_DECL = re.compile(rb"<\s*!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


class JUnitError(ValueError):
    """The report is unsafe or unreadable (never expanded, never trusted)."""


@dataclass
class RawCase:
    classname: str
    name: str
    file: str | None
    outcome: Outcome
    message: str = ""


@dataclass
class _Node:
    tag: str
    attrib: dict
    children: list = field(default_factory=list)
    text: list = field(default_factory=list)


class _Refuse(Exception):
    pass


def cap_message(text: str) -> str:
    text = (text or "").strip()
    lines = text.splitlines()
    if len(lines) > MAX_MESSAGE_LINES:
        text = "\n".join(lines[:MAX_MESSAGE_LINES]) + "\n..."
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + "..."
    return text


def _parse_tree(data: bytes) -> _Node:
    if len(data) > MAX_REPORT_BYTES:
        raise JUnitError(f"report is {len(data)} bytes, over the {MAX_REPORT_BYTES}-byte cap")
    if _DECL.search(data):
        raise JUnitError("report contains a DOCTYPE or ENTITY declaration; refused unparsed")
    p = expat.ParserCreate()
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    root = _Node("#root", {})
    stack = [root]

    def refuse(*_a):
        raise _Refuse("DOCTYPE/ENTITY declaration")

    def start(tag, attrib):
        if len(stack) > 64:
            raise _Refuse("elements nested over 64 deep")
        n = _Node(tag, dict(attrib))
        stack[-1].children.append(n)
        stack.append(n)

    def end(_tag):
        stack.pop()

    def chars(s):
        node = stack[-1]
        if sum(len(x) for x in node.text) < 4 * MAX_MESSAGE_CHARS:
            node.text.append(s)

    p.StartDoctypeDeclHandler = refuse
    p.EntityDeclHandler = refuse
    p.UnparsedEntityDeclHandler = refuse
    p.ExternalEntityRefHandler = refuse
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    try:
        p.Parse(data, True)
    except _Refuse as e:
        raise JUnitError(f"report refused: {e}") from None
    except expat.ExpatError as e:
        raise JUnitError(f"report is not well-formed XML: {e}") from None
    return root


def _iter(node: _Node, tag: str):
    for c in node.children:
        if c.tag == tag:
            yield c
        yield from _iter(c, tag)


_CHILD_OUTCOME: dict[str, Outcome] = {"failure": "failed", "error": "error", "skipped": "skipped"}


def parse_junit(data: bytes) -> list[RawCase]:
    """Every ``<testcase>`` of a JUnit XML document, with its outcome and capped message."""
    root = _parse_tree(data)
    cases = []
    for tc in _iter(root, "testcase"):
        outcome: Outcome = "passed"
        message = ""
        for child in tc.children:
            if child.tag in _CHILD_OUTCOME:
                new = _CHILD_OUTCOME[child.tag]
                if outcome == "passed" or (outcome == "skipped" and new != "skipped") or new == "error":
                    outcome = new
                    message = child.attrib.get("message") or "".join(child.text)
        cases.append(
            RawCase(
                tc.attrib.get("classname", ""),
                tc.attrib.get("name", ""),
                tc.attrib.get("file"),
                outcome,
                cap_message(message),
            )
        )
    if not any(n.tag in ("testsuite", "testsuites") for n in root.children):
        raise JUnitError("report has no <testsuite> or <testsuites> root element")
    return cases


@contextlib.contextmanager
def regular_file(path: str | os.PathLike[str]) -> Iterator[tuple[int, os.stat_result] | None]:
    """``(fd, stat)`` of a regular file opened without following a link (a FIFO swapped
    in never blocks), closed on exit; None if absent, a link or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        yield None
        return
    try:
        st = os.fstat(fd)
        yield (fd, st) if stat.S_ISREG(st.st_mode) else None
    finally:
        os.close(fd)


def read_report(path: str, limit: int = MAX_REPORT_BYTES) -> bytes | None:
    """Read a report without following links; None if absent or not a regular file."""
    with regular_file(path) as got:
        if got is None:
            return None
        fd, st = got
        if st.st_size > limit:
            raise JUnitError(f"report is {st.st_size} bytes, over the {limit}-byte cap")
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
