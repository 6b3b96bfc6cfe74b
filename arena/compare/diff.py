"""The diff of two attempts' final submissions, bounded whatever the agents wrote.

Both sides are stored snapshots (``arena.judge.verdict.snapshot``, one per submission,
under ``<store>.d/snapshots/<sha256>/``). Files whose content differs are diffed as
unified text (``difflib`` over the middle left after stripping the common prefix and
suffix). ``difflib`` is worse than linear on files of repeated lines, so a middle over
``PAIR_BUDGET`` line pairs (or once ``TOTAL_BUDGET`` is spent) is not diffed: its line
counts come from ``arena.textdiff`` (bounded too) and a marker says so. The diff as a
whole stops at ``MAX_LINES`` lines, each line at ``MAX_LINE`` characters, with a marker.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from arena import textdiff
from arena.text import printable

MAX_LINES = 1500  # lines of the whole diff shown
MAX_LINE = 240  # characters of one diff line
MAX_FILE_BYTES = 1024 * 1024  # a larger file is compared by size and digest only
PAIR_BUDGET = 2_000_000  # len(middle a) x len(middle b) of one file diffed by difflib
TOTAL_BUDGET = 6_000_000  # the same over every file
CONTEXT = 3


@dataclass
class FileDiff:
    path: str
    status: str  # "changed" | "only_a" | "only_b" | "binary" | "too_large"
    added: int = 0
    removed: int = 0
    lines: list[str] = field(default_factory=list)  # unified lines: "@@", " ", "-", "+"
    note: str = ""

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "status": self.status,
            "added": self.added,
            "removed": self.removed,
            "lines": self.lines,
            "note": self.note,
        }


@dataclass
class SubmissionDiff:
    a: str | None  # snapshot hash of A's scored submission (None: no submission scored)
    b: str | None
    files: list[FileDiff] = field(default_factory=list)
    truncated: int = 0  # diff lines left out past MAX_LINES
    notes: list[str] = field(default_factory=list)
    identical: bool = False

    def as_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "identical": self.identical,
            "files": [f.as_dict() for f in self.files],
            "truncated_lines": self.truncated,
            "notes": self.notes,
        }


def _clip(text: str, n: int = MAX_LINE) -> str:
    text = printable(text.rstrip("\n"), newlines=False)
    return text if len(text) <= n else text[: n - 1] + "…"


def _read(root: Path | None, rel: str) -> tuple[bytes | None, str]:
    """(content, why not) of one stored file; links read as their target."""
    if root is None:
        return b"", ""
    p = root / rel
    if p.is_symlink():
        import os  # noqa: PLC0415

        return f"-> {os.readlink(p)}\n".encode("utf-8", "surrogateescape"), ""
    if not p.is_file():
        return b"", ""
    size = p.stat().st_size
    if size > MAX_FILE_BYTES:
        return None, f"over {MAX_FILE_BYTES // 1024} KiB"
    return p.read_bytes(), ""


def _files(root: Path | None) -> set[str]:
    if root is None:
        return set()
    out = set()
    for p in root.rglob("*"):
        if p.is_symlink() or p.is_file():
            out.add(p.relative_to(root).as_posix())
    return out


def _unified(a: list[str], b: list[str], lo: int, hi_a: int, hi_b: int) -> list[str]:
    """Unified hunks of ``a`` -> ``b``, diffing only ``a[lo:hi_a]`` / ``b[lo:hi_b]`` plus context."""
    s = max(0, lo - CONTEXT)
    ea, eb = min(len(a), hi_a + CONTEXT), min(len(b), hi_b + CONTEXT)
    sa, sb = a[s:ea], b[s:eb]
    out: list[str] = []
    for group in difflib.SequenceMatcher(None, sa, sb).get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{s + i1 + 1},{i2 - i1} +{s + j1 + 1},{j2 - j1} @@")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [" " + _clip(x) for x in sa[x1:x2]]
                continue
            out += ["-" + _clip(x) for x in sa[x1:x2]]
            out += ["+" + _clip(y) for y in sb[y1:y2]]
    return out


def _text(data: bytes) -> list[str] | None:
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "surrogateescape").splitlines()


def diff_snapshots(root_a: Path | None, root_b: Path | None) -> list[FileDiff]:
    """Every file that differs between two stored snapshot trees (None: no submission)."""
    spent = 0
    out: list[FileDiff] = []
    fa, fb = _files(root_a), _files(root_b)
    for rel in sorted(fa | fb):
        da, why_a = _read(root_a if rel in fa else None, rel)
        db, why_b = _read(root_b if rel in fb else None, rel)
        if da is not None and db is not None and da == db:
            continue
        status = "changed" if rel in fa and rel in fb else "only_a" if rel in fa else "only_b"
        name = printable(rel, newlines=False)
        if da is None or db is None:
            out.append(FileDiff(name, "too_large", note=f"not diffed: {why_a or why_b}"))
            continue
        la, lb = _text(da), _text(db)
        if la is None or lb is None:
            out.append(FileDiff(name, "binary", note="binary files differ"))
            continue
        lo, top = 0, min(len(la), len(lb))
        while lo < top and la[lo] == lb[lo]:
            lo += 1
        hi_a, hi_b = len(la), len(lb)
        while hi_a > lo and hi_b > lo and la[hi_a - 1] == lb[hi_b - 1]:
            hi_a, hi_b = hi_a - 1, hi_b - 1
        pairs = max(1, hi_a - lo) * max(1, hi_b - lo)
        if pairs > PAIR_BUDGET or spent + pairs > TOTAL_BUDGET:
            d = textdiff.line_delta(la, lb)
            out.append(FileDiff(name, status, d.added, d.removed, note="too many lines to show the diff"))
            continue
        spent += pairs
        lines = _unified(la, lb, lo, hi_a, hi_b)
        added = sum(1 for x in lines if x.startswith("+"))
        removed = sum(1 for x in lines if x.startswith("-"))
        out.append(FileDiff(name, status, added, removed, lines))
    return out


def submission_diff(root: Path, hash_a: str | None, hash_b: str | None) -> SubmissionDiff:
    """The diff of two scored submissions by snapshot hash under the snapshots ``root``."""
    res = SubmissionDiff(hash_a, hash_b)
    trees: list[Path | None] = []
    for side, h in (("A", hash_a), ("B", hash_b)):
        if not h:
            res.notes.append(f"{side} has no scored submission: its side is empty")
            trees.append(None)
            continue
        p = root / h
        if not p.is_dir():
            res.notes.append(f"{side}'s submission snapshot {h[:12]} is not kept in this store: its side is empty")
            trees.append(None)
            continue
        trees.append(p)
    if hash_a and hash_a == hash_b:
        res.identical = True
        return res
    res.files = diff_snapshots(trees[0], trees[1])
    res.identical = not res.files
    shown = 0
    for f in res.files:  # the whole diff's bound: later lines are counted, not kept
        room = max(0, MAX_LINES - shown)
        if len(f.lines) > room:
            res.truncated += len(f.lines) - room
            f.lines = f.lines[:room]
        shown += len(f.lines)
    return res
