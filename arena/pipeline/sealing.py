"""Sealing published assets (seed 003 step 5.3): AES-256-GCM over a deterministic tar of
each sensitive asset class, with the key from ``GAUNTLET_PUBLISH_KEY`` or a key file made
once (mode 0600) in the store's data directory.

A sealed file is ``MAGIC`` + 12-byte random nonce + ciphertext and 16-byte tag. The
associated data binds it to its challenge, asset class and package hash, so a sealed file
moved into another entry (or renamed to another class) fails to open."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import os
import secrets
import stat
import tarfile
from pathlib import Path, PurePosixPath

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"GAUNTLET-SEALED/1\n"
NONCE_BYTES = 12
KEY_BYTES = 32
KEY_ENV = "GAUNTLET_PUBLISH_KEY"
KEY_FILE = "publish.key"


class SealError(ValueError):
    """A key or sealed file that cannot be used; the message is one line naming it."""


# ---- keys -------------------------------------------------------------------------------


def parse_key(text: str, where: str) -> bytes:
    """32 bytes written as 64 hex digits or base64 (standard or URL-safe)."""
    s = text.strip()
    if len(s) == 2 * KEY_BYTES:
        try:
            return bytes.fromhex(s)
        except ValueError:
            pass
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decode(s + "=" * (-len(s) % 4))
        except (binascii.Error, ValueError):
            continue
        if len(raw) == KEY_BYTES:
            return raw
    raise SealError(
        f"{where}: not a usable key ({len(s)} characters): expected 32 bytes written as 64 hex digits or base64"
    )


def key_id(key: bytes) -> str:
    """A short public name for a key (never the key): lets an error say which key sealed what."""
    return hashlib.sha256(b"gauntlet.publish.key-id\0" + key).hexdigest()[:16]


def load_key(data_dir: Path, *, create: bool = True) -> tuple[bytes, str]:
    """(key, where it came from). ``GAUNTLET_PUBLISH_KEY`` wins; else ``<data_dir>/publish.key``,
    created once with mode 0600 when ``create`` (publishing) and refused when others can read it."""
    env = os.environ.get(KEY_ENV)
    if env is not None and env.strip():
        return parse_key(env, KEY_ENV), KEY_ENV
    path = data_dir / KEY_FILE
    if not path.exists() and create:
        data_dir.mkdir(parents=True, exist_ok=True)
        # Written whole under a private name, then linked into place: a concurrent
        # publisher either makes it first (link fails: read theirs) or reads a whole key.
        tmp = data_dir / f".{KEY_FILE}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(KEY_BYTES) + "\n")
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    if not path.exists():
        raise SealError(f"{path}: no such key file: expected {KEY_ENV} set or the key file the first publish made")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SealError(f"{path}: mode {mode:04o}: expected 0600 (the publish key must not be readable by others)")
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise SealError(f"{path}: unreadable key file ({exc.__class__.__name__}): expected 64 hex digits") from None
    return parse_key(text, str(path)), str(path)


# ---- sealing ------------------------------------------------------------------------------


def aad(challenge_id: str, asset: str, package_hash: str) -> bytes:
    return f"gauntlet.sealed/v1\0{challenge_id}\0{asset}\0{package_hash}".encode()


def seal(plain: bytes, key: bytes, associated: bytes) -> bytes:
    nonce = secrets.token_bytes(NONCE_BYTES)
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, plain, associated)


def unseal(blob: bytes, key: bytes, associated: bytes, where: str, sealed_key_id: str | None = None) -> bytes:
    from cryptography.exceptions import InvalidTag  # noqa: PLC0415

    if not blob.startswith(MAGIC) or len(blob) < len(MAGIC) + NONCE_BYTES + 16:
        raise SealError(f"{where}: not a sealed Gauntlet asset: expected a file written by challenge publish")
    nonce = blob[len(MAGIC) : len(MAGIC) + NONCE_BYTES]
    try:
        return AESGCM(key).decrypt(nonce, blob[len(MAGIC) + NONCE_BYTES :], associated)
    except InvalidTag:
        given = key_id(key)
        if sealed_key_id and sealed_key_id != given:
            raise SealError(
                f"{where}: cannot decrypt: sealed with key id {sealed_key_id}, the key given has id {given}: expected the publish key of this store"
            ) from None
        raise SealError(
            f"{where}: cannot decrypt: authentication failed: the file was altered or moved from another entry"
        ) from None


# ---- deterministic tar of package files --------------------------------------------------


def pack(entries: dict[str, bytes | PurePosixPath]) -> bytes:
    """A tar of package-relative path -> bytes (a file) or PurePosixPath (a symlink's
    target), with fixed owner, mode and times so the same files give the same bytes."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(entries):
            content = entries[rel]
            info = tarfile.TarInfo(rel)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if isinstance(content, PurePosixPath):
                info.type = tarfile.SYMTYPE
                info.linkname = str(content)
                info.mode = 0o777
                tar.addfile(info)
            else:
                info.size = len(content)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(content))
    return buf.getvalue()


def _safe_rel(name: str, where: str) -> str:
    pp = PurePosixPath(name)
    if pp.is_absolute() or ".." in pp.parts or not pp.parts:
        raise SealError(f"{where}: entry {name!r} leaves the package: expected package-relative paths")
    return pp.as_posix()


def unpack(data: bytes, where: str) -> dict[str, bytes | PurePosixPath]:
    """path -> file bytes, or -> PurePosixPath(link target) for a symlink."""
    out: dict[str, bytes | PurePosixPath] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            for m in tar.getmembers():
                rel = _safe_rel(m.name, where)
                if m.issym():
                    out[rel] = PurePosixPath(m.linkname)
                elif m.isfile():
                    fh = tar.extractfile(m)
                    out[rel] = fh.read() if fh else b""
                else:
                    raise SealError(
                        f"{where}: entry {m.name!r} is neither a file nor a symlink: expected package files"
                    )
    except tarfile.TarError as exc:
        raise SealError(
            f"{where}: sealed archive is damaged ({exc}): expected a tar written by challenge publish"
        ) from None
    return out


__all__ = [
    "KEY_ENV",
    "KEY_FILE",
    "SealError",
    "aad",
    "key_id",
    "load_key",
    "pack",
    "parse_key",
    "seal",
    "unpack",
    "unseal",
]
