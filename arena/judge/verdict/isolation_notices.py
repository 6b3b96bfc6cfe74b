"""Isolation notices: constructs of a test that process isolation could not carry (issue 27).

The trusted plugin (isolation.py ``notice``) writes a signed progress-log line
``{"event": "isolation", "nodeid", "construct", "detail"}`` through the judge plugin; this
reads them back (only lines signed with the run's key count) into
``JudgeResult.isolation_notices`` and one human line per (test, construct) for
``JudgeResult.notices``. Shape: docs/judge.md, section 4b.
"""

from __future__ import annotations

import hmac
import json

from arena.judge.verdict.expected import Matcher, test_id
from arena.judge.verdict.verdict import scrub_paths, signature
from arena.results import IsolationNotice

CONSTRUCTS = frozenset({"eq-test-value", "setattr-test-object", "patch-target", "isinstance", "unsupported"})
MAX_NOTICES = 200


def read_isolation_notices(data: bytes | None, key: str | None, matcher: Matcher | None) -> list[IsolationNotice]:
    """The isolation notices of a run's progress log, one per (test, construct, detail)."""
    out: list[IsolationNotice] = []
    seen: set[tuple[str, str, str]] = set()
    for line in (data or b"").splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict) or ev.get("event") != "isolation":
            continue
        if key and not (isinstance(ev.get("mac"), str) and hmac.compare_digest(ev["mac"], signature(key, ev))):
            continue
        nodeid = str(ev.get("nodeid", ""))[:500]
        construct = str(ev.get("construct", ""))
        construct = construct if construct in CONSTRUCTS else "unsupported"
        detail = scrub_paths(str(ev.get("detail", ""))[:600])
        hit = matcher.from_nodeid(nodeid) if matcher is not None and nodeid else None
        tid = (
            test_id(hit[0].phase, hit[0].suite, hit[0].relpath, hit[0].classes, hit[1]) if hit else scrub_paths(nodeid)
        )
        k = (tid, construct, detail)
        if k in seen:
            continue
        seen.add(k)
        out.append(IsolationNotice(test=tid, construct=construct, detail=detail))
        if len(out) >= MAX_NOTICES:
            break
    return out


def notice_lines(notices: list[IsolationNotice]) -> list[str]:
    """One line of ``JudgeResult.notices`` per (test, construct)."""
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    for n in notices:
        if (n.test, n.construct) in seen:
            continue
        seen.add((n.test, n.construct))
        lines.append(f"isolation: {n.test}: {n.detail} (the package may need judge.isolation: in_process)")
    return lines[:20]
