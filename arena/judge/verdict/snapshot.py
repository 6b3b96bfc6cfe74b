"""Immutable, content-addressed snapshots of a workspace (one per submission).

The judge never runs the live workspace: it runs a copy of a snapshot. A snapshot
is stored under ``<snapshots_root>/<sha256>/`` and never changes after it is
written (files are made read-only). Symlinks are stored as links and never
followed — a link pointing outside the workspace stays a link, its target is not
read. ``__pycache__`` and ``.pytest_cache`` are skipped. Caps on the file count
and the total bytes keep a hostile workspace from filling the disk: files beyond
a cap are left out and ``notices`` says so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena import textdiff
from arena.text import printable
from arena.sandbox.fsutil import read_regular

SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache"})


@dataclass(frozen=True)
class SnapshotCaps:
    max_files: int = 2000
    max_bytes: int = 20 * 1024 * 1024  # total bytes of regular files
    max_file_bytes: int = 5 * 1024 * 1024  # one file


@dataclass(frozen=True)
class Entry:
    path: str  # relative, "/"-separated
    kind: str  # "file" | "link"
    mode: int  # 0o644 or 0o755 for files, 0o777 for links
    size: int  # bytes of content (files) or of the target (links)
    digest: str  # sha256 of content (files) or of the link target (links)
    target: str | None = None  # link target, as written (never resolved)


@dataclass
class Snapshot:
    hash: str
    path: Path  # the stored tree
    files: list[str]  # relative paths of stored files and links, sorted
    notices: list[str] = field(default_factory=list)
    entries: dict[str, Entry] = field(default_factory=dict)
    bytes: int = 0

    @property
    def file_count(self) -> int:
        return len(self.files)


def _read_nofollow(path: str, limit: int) -> bytes | None:
    """A regular file's bytes, read without following a link swapped in under us;
    None when absent, not a regular file, or over ``limit`` bytes."""
    data = read_regular(path, limit)
    return None if data is None or len(data) > limit else data


_DIR_FD = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
MAX_DEPTH = 64  # deeper directories are left out (reported as special entries)


def _walk(workspace: Path):
    """Yield (relpath, kind, abspath, lstat) in sorted order, never following links.
    Directories are walked by fd (opened ``O_NOFOLLOW``), and ``abspath`` names the
    entry through the fd of the directory actually listed (``/proc/self/fd/N/name``),
    so a directory swapped for a link mid-walk can never lead the read outside."""
    try:
        top = os.open(workspace, _DIR_FD)
    except OSError:
        return
    try:
        yield from _walk_fd(top, "", 0)
    finally:
        os.close(top)


def _walk_fd(dfd: int, rel_dir: str, depth: int):
    try:
        names = sorted(os.listdir(dfd))
    except OSError:
        return
    subdirs = []
    for name in names:
        rel = f"{rel_dir}/{name}" if rel_dir else name
        ap = f"/proc/self/fd/{dfd}/{name}"
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            yield rel, "link", ap, st
        elif stat.S_ISDIR(st.st_mode):
            if name in SKIP_DIRS:
                continue
            if depth >= MAX_DEPTH:
                yield rel, "special", ap, st
            else:
                subdirs.append((rel, name))
        elif stat.S_ISREG(st.st_mode):
            yield rel, "file", ap, st
        else:
            yield rel, "special", ap, st
    for rel, name in subdirs:
        try:
            sub = os.open(name, _DIR_FD, dir_fd=dfd)
        except OSError:  # swapped for a link or removed since the listing: skipped
            continue
        try:
            yield from _walk_fd(sub, rel, depth + 1)
        finally:
            os.close(sub)


def _entries_digest(entries: list[Entry]) -> str:
    h = hashlib.sha256()
    for e in sorted(entries, key=lambda e: e.path):
        h.update(f"{e.path}\0{e.kind}\0{e.mode:o}\0{e.digest}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def take_snapshot(workspace: Path | str, snapshots_root: Path | str, caps: SnapshotCaps | None = None) -> Snapshot:
    caps = caps or SnapshotCaps()
    workspace = Path(workspace)
    root = Path(snapshots_root)
    root.mkdir(parents=True, exist_ok=True)
    if not workspace.is_dir():
        raise FileNotFoundError(f"workspace {workspace}: not a directory")
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=root))
    entries: list[Entry] = []
    notices: list[str] = []
    left_out_count: list[str] = []
    left_out_bytes: list[str] = []
    skipped_special: list[str] = []
    total = 0
    try:
        for rel, kind, ap, st in _walk(workspace):
            if kind == "special":
                skipped_special.append(rel)
                continue
            if len(entries) >= caps.max_files:
                left_out_count.append(rel)
                continue
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if kind == "link":
                try:
                    target = os.readlink(ap)
                except OSError:
                    continue
                os.symlink(target, dest)
                raw = target.encode("utf-8", "surrogateescape")
                entries.append(Entry(rel, "link", 0o777, len(raw), hashlib.sha256(raw).hexdigest(), target))
                continue
            if st.st_size > caps.max_file_bytes or total + st.st_size > caps.max_bytes:
                left_out_bytes.append(rel)
                continue
            data = _read_nofollow(ap, min(caps.max_file_bytes, caps.max_bytes - total))
            if data is None:
                left_out_bytes.append(rel)
                continue
            mode = 0o755 if st.st_mode & 0o111 else 0o644
            dest.write_bytes(data)
            total += len(data)
            entries.append(Entry(rel, "file", mode, len(data), hashlib.sha256(data).hexdigest()))
        if left_out_count:
            notices.append(
                f"Snapshot capped at {caps.max_files} files: {len(left_out_count)} file(s) left out "
                f"(first: {printable(left_out_count[0], newlines=False)})."
            )
        if left_out_bytes:
            notices.append(
                f"Snapshot capped at {caps.max_bytes} bytes ({caps.max_file_bytes} per file): "
                f"{len(left_out_bytes)} file(s) left out (first: {printable(left_out_bytes[0], newlines=False)})."
            )
        if skipped_special:
            notices.append(
                f"{len(skipped_special)} special file(s) (fifo, socket, device) left out "
                f"(first: {printable(skipped_special[0], newlines=False)})."
            )
        digest = _entries_digest(entries)
        final = root / digest
        if final.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            _freeze(tmp, entries)
            try:
                os.rename(tmp, final)
            except OSError:  # a concurrent writer stored the same content first
                _unfreeze(tmp)
                shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        _unfreeze(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    by_path = {e.path: e for e in entries}
    return Snapshot(digest, final, sorted(by_path), notices, by_path, total)


def _freeze(tree: Path, entries: list[Entry]) -> None:
    for e in entries:
        if e.kind == "file":
            os.chmod(tree / e.path, 0o555 if e.mode == 0o755 else 0o444)


def _unfreeze(tree: Path) -> None:
    for dirpath, _dirs, files in os.walk(tree):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                try:
                    os.chmod(p, 0o644)
                except OSError:
                    pass


def materialize(snapshot: Snapshot, dest: Path) -> None:
    """Copy a snapshot's tree into ``dest`` (writable copies, links kept as links)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in snapshot.files:
        e = snapshot.entries[rel]
        src, out = snapshot.path / rel, dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if e.kind == "link":
            if e.target is None:  # never: snapshot() records every link with its target
                raise ValueError(f"snapshot entry {rel}: a link without a target")
            os.symlink(e.target, out)
        else:
            data = _read_nofollow(str(src), max(e.size, 1) + 1)
            out.write_bytes(data or b"")
            os.chmod(out, e.mode)


def load_snapshot(snapshots_root: Path | str, digest: str) -> Snapshot:
    """Re-open a stored snapshot by its hash (e.g. after a restart)."""
    path = Path(snapshots_root) / digest
    if not path.is_dir():
        raise FileNotFoundError(f"snapshot {digest}: not found under {snapshots_root}")
    entries: list[Entry] = []
    total = 0
    for rel, kind, ap, st in _walk(path):
        if kind == "link":
            target = os.readlink(ap)
            raw = target.encode("utf-8", "surrogateescape")
            entries.append(Entry(rel, "link", 0o777, len(raw), hashlib.sha256(raw).hexdigest(), target))
        elif kind == "file":
            with open(ap, "rb") as fh:
                data = fh.read()
            total += len(data)
            entries.append(
                Entry(rel, "file", 0o755 if st.st_mode & 0o111 else 0o644, len(data), hashlib.sha256(data).hexdigest())
            )
    by_path = {e.path: e for e in entries}
    return Snapshot(digest, path, sorted(by_path), [], by_path, total)


def _text_lines(snapshot: Snapshot, rel: str) -> list[str] | None:
    e = snapshot.entries.get(rel)
    if e is None:
        return []
    if e.kind == "link":
        return [f"-> {e.target}\n"]
    data = (snapshot.path / rel).read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary: changed, but no lines counted
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def diff_stats(prev: Snapshot | None, cur: Snapshot) -> dict:
    """Files changed, lines added/removed and a 0-1 similarity over the changed text."""
    prev_entries = prev.entries if prev else {}
    changed = sorted(
        p
        for p in set(prev_entries) | set(cur.entries)
        if (prev_entries.get(p) is None) != (cur.entries.get(p) is None)
        or (
            p in prev_entries
            and p in cur.entries
            and (prev_entries[p].digest, prev_entries[p].mode, prev_entries[p].kind)
            != (cur.entries[p].digest, cur.entries[p].mode, cur.entries[p].kind)
        )
    )
    added = removed = 0
    deltas: list[textdiff.Delta] = []
    for p in changed:
        old = _text_lines(prev, p) if prev else []
        new = _text_lines(cur, p)
        if old is None or new is None:
            continue
        d = textdiff.line_delta(old, new)  # bounded: never the quadratic difflib
        deltas.append(d)
        added += d.added
        removed += d.removed
    if not changed:
        similarity = 1.0
    elif not any(d.common or d.added or d.removed for d in deltas):
        similarity = 0.0 if prev is None else 1.0
    else:
        similarity = textdiff.similarity(deltas)
    return {
        "files_changed": len(changed),
        "lines_added": added,
        "lines_removed": removed,
        "similarity": round(similarity, 4),
        "changed_files": [printable(p, newlines=False) for p in changed],
    }
