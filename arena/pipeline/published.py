"""The published challenge store (seed 003 step 5.3): one directory per publication,
``<store>.d/published/<id>/<version>/``::

    metadata.json  lifecycle.json  lineage.json  monitors.json
    public/briefing.md  public/starter/...      what an agent may read at the start
    sealed/<asset>.enc                          AES-256-GCM over a tar of that asset class

A version directory appears whole (written under a hidden staging name, then renamed), so
a reader never sees half an entry and two publishers never get the same version."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from arena.pipeline.publish_records import hash_entries
from arena.pipeline.sealing import SealError, aad, pack, seal, unpack, unseal
from arena.paths import data_dir

RECORDS = ("metadata", "lifecycle", "lineage", "monitors")
MAX_VERSION_RACES = 50


def published_root(store: Path) -> Path:
    return data_dir(store) / "published"


def versions(challenge_dir: Path) -> list[int]:
    """Complete publications of one challenge id, oldest first."""
    if not challenge_dir.is_dir():
        return []
    return sorted(int(p.name) for p in challenge_dir.iterdir() if p.name.isdigit() and (p / "metadata.json").is_file())


def _write_json(path: Path, doc: object) -> None:
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def write_entry(
    store: Path,
    challenge_id: str,
    entries: dict[str, bytes | PurePosixPath],
    *,
    plain: list[str],
    sealed: dict[str, list[str]],
    key: bytes,
    package_hash: str,
    records: Callable[[int], dict[str, Any]],
    stage: str,
) -> tuple[Path, int]:
    """Write one publication from the package's files as read once (``entries``);
    ``records(version)`` gives the JSON records for the version finally taken.
    Returns (entry directory, version)."""
    cdir = published_root(store) / challenge_id
    cdir.mkdir(parents=True, exist_ok=True)
    staging = cdir / f".staging-{stage}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        (staging / "public").mkdir(parents=True)
        for rel in plain:
            dst = staging / "public" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            content = entries[rel]
            if isinstance(content, PurePosixPath):
                os.symlink(str(content), dst)
            else:
                dst.write_bytes(content)
        (staging / "sealed").mkdir()
        for asset, rels in sorted(sealed.items()):
            blob = seal(pack({r: entries[r] for r in rels}), key, aad(challenge_id, asset, package_hash))
            (staging / "sealed" / f"{asset}.enc").write_bytes(blob)
        version = (versions(cdir) or [0])[-1] + 1
        for _ in range(MAX_VERSION_RACES):
            for name, doc in records(version).items():
                _write_json(staging / f"{name}.json", doc)
            try:
                os.rename(staging, cdir / str(version))  # fails if another publisher took it
                return cdir / str(version), version
            except OSError:
                version = max(version + 1, (versions(cdir) or [0])[-1] + 1)
        raise OSError(f"{cdir}: could not take a version number after {MAX_VERSION_RACES} tries")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def read_record(entry: Path, name: str) -> dict[str, Any]:
    path = entry / f"{name}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SealError(
            f"{path}: unreadable ({exc.__class__.__name__}): expected the JSON record challenge publish wrote"
        ) from None
    if not isinstance(doc, dict):
        raise SealError(f"{path}: not a JSON object: expected the record challenge publish wrote")
    return doc


def open_published(entry: str | os.PathLike, key: bytes) -> dict[str, bytes | PurePosixPath]:
    """Every file of a published package: the plain ones and the sealed ones decrypted,
    path -> bytes (or -> PurePosixPath(target) for a symlink). Raises ``SealError`` with a
    one-line message for a wrong key, an altered or moved sealed file, or plain files that
    no longer hash to the published package."""
    entry = Path(entry)
    meta = read_record(entry, "metadata")
    cid, phash, kid = meta.get("id"), meta.get("package_hash"), (meta.get("sealed") or {}).get("key_id")
    files: dict[str, bytes | PurePosixPath] = {}
    public = entry / "public"
    if public.is_dir():
        for d, dirs, names in os.walk(public, followlinks=False):
            base = Path(d)
            for n in dirs + names:
                p = base / n
                rel = p.relative_to(public).as_posix()
                if p.is_symlink():
                    files[rel] = PurePosixPath(os.readlink(p))
                elif p.is_file():
                    files[rel] = p.read_bytes()
    for asset in sorted((meta.get("sealed") or {}).get("assets", {})):
        path = entry / "sealed" / f"{asset}.enc"
        try:
            blob = path.read_bytes()
        except OSError as exc:
            raise SealError(
                f"{path}: missing or unreadable ({exc.__class__.__name__}): expected the sealed {asset} asset"
            ) from None
        files.update(unpack(unseal(blob, key, aad(str(cid), asset, str(phash)), str(path), kid), str(path)))
    got = hash_entries(files)
    if got != phash:
        raise SealError(
            f"{entry}: files hash to {got}: expected the published package hash {phash} (the entry was altered)"
        )
    return files


def restore_published(entry: str | os.PathLike, key: bytes, dest: Path) -> Path:
    """Write a published package back out as a challenge directory (``dest`` must not exist)."""
    files = open_published(entry, key)
    dest.mkdir(parents=True)
    for rel, content in sorted(files.items()):
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, PurePosixPath):
            os.symlink(str(content), p)
        else:
            p.write_bytes(content)
    return dest


def list_published(store: Path) -> list[dict[str, Any]]:
    """The search index of seed 003 step 5.3: the newest version of each published id.
    Reading only: makes no directory."""
    root = store.with_name(store.name + ".d") / "published"
    out: list[dict[str, Any]] = []
    if not root.is_dir():
        return out
    for cdir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        vs = versions(cdir)
        if not vs:
            continue
        entry = cdir / str(vs[-1])
        try:
            meta, life = read_record(entry, "metadata"), read_record(entry, "lifecycle")
        except SealError:
            continue
        out.append(
            {
                "id": meta.get("id"),
                "version": vs[-1],
                "versions": len(vs),
                "state": life.get("state"),
                "state_reason": life.get("reason"),
                "calibration_verified": verified(entry, meta),
                "monitor_checks": len(life.get("monitor_checks") or []),
                "review_flags": [r.get("flag") for r in life.get("review") or [] if isinstance(r, dict)],
                "category": meta.get("category"),
                "weight_class": meta.get("weight_class"),
                "discriminator_traits": meta.get("discriminator_traits"),
                "published_at": life.get("published_at"),
                "expires_at": life.get("expires_at"),
                "entry": str(entry),
            }
        )
    return out


def verified(entry: Path, meta: dict[str, Any] | None = None) -> bool | None:
    """Whether the publication's calibration was re-judged at publish: ``metadata.json``'s
    ``calibration_verified`` (entries written before it was there: ``lineage.json``'s);
    None when neither says."""
    meta = meta if meta is not None else read_record(entry, "metadata")
    v = meta.get("calibration_verified")
    if isinstance(v, bool):
        return v
    try:
        v = read_record(entry, "lineage").get("calibration_verified")
    except SealError:
        return None
    return v if isinstance(v, bool) else None


def _published_at(entry: Path) -> str:
    try:
        return str(read_record(entry, "lifecycle").get("published_at") or "")
    except SealError:
        return ""


def publication_at(store: Path, challenge_id: str, started_at: str) -> Path | None:
    """The publication of ``challenge_id`` an attempt started at ``started_at`` (ISO
    text, UTC) ran under: the newest version published at or before it; None when the
    challenge was not published then. Reading only."""
    if "/" in challenge_id or "\0" in challenge_id or challenge_id in ("", ".", "..") or len(challenge_id) > 200:
        return None  # no publication has that id (a stored name is data: never a path, issue 36)
    cdir = store.with_name(store.name + ".d") / "published" / challenge_id
    for v in reversed(versions(cdir)):
        at = _published_at(cdir / str(v))
        if at and _utc(at) <= _utc(started_at):
            return cdir / str(v)
    return None


def _utc(text: str) -> str:
    """ISO timestamps compared as text once both are ``YYYY-MM-DDTHH:MM:SS`` in UTC."""
    from datetime import datetime, timezone  # noqa: PLC0415

    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


def unverified_attempts(store: Path, rows: list[dict[str, Any]]) -> set[str]:
    """Ids of the attempts (store rows: ``id``, ``challenge``, ``started_at``) that ran
    under a publication whose calibration was not verified (``--unverified-calibration``):
    the mark the Standings and leaderboard rows of those attempts show (issue 20)."""
    out: set[str] = set()
    seen: dict[tuple[str, str], bool] = {}
    for r in rows:
        cid, at = str(r.get("challenge") or ""), str(r.get("started_at") or "")
        if not cid or not at:
            continue
        entry = publication_at(store, cid, at)
        if entry is None:
            continue
        key = (cid, entry.name)
        if key not in seen:
            try:
                seen[key] = verified(entry) is False
            except SealError:
                seen[key] = False
        if seen[key]:
            out.add(str(r.get("id")))
    return out


__all__ = [
    "list_published",
    "publication_at",
    "unverified_attempts",
    "verified",
    "open_published",
    "published_root",
    "read_record",
    "restore_published",
    "versions",
    "write_entry",
]
