"""The ``gauntlet-base`` image: a Debian rootfs made by debootstrap, imported into Docker.

No registry is reachable, so the image is built from Debian packages: ``debootstrap
--variant=minbase`` with Python 3, pytest and coverage, a non-root ``sandbox`` user
(``SANDBOX_UID``, a uid no host account has), ``python`` resolving to ``python3``, then ``docker import`` of the rootfs
tarball. The image is labelled ``gauntlet.recipe=<sha256 of the recipe>``; a build
does nothing when an image with that label exists. The debootstrap tarball is cached
in ``~/.cache/gauntlet/`` (or ``$GAUNTLET_CACHE``) keyed by the same hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.sandbox.base import SandboxError
from arena.sandbox.buildlock import locked_build
from arena.sandbox.cache import cache_dir  # re-exported: callers import it from here

BASE_IMAGE = "gauntlet-base"
BASE_TAG = "latest"
RECIPE_LABEL = "gauntlet.recipe"
# No host account has it (issue 26: at 1000, a host user of uid 1000 could read the agent's
# /proc/<pid>/environ, its gateway token); below the local backend's per-sandbox uids (quota.py's
# 2,000,000..) and inside a ustar header's 7 octal digits (the rootfs is imported as a tar).
SANDBOX_UID = 1_999_000
SANDBOX_USER = "sandbox"

RECIPE: dict = {
    "version": 1,  # bump when the post-processing below changes
    "suite": "bookworm",
    "variant": "minbase",
    "mirror": os.environ.get("GAUNTLET_DEBIAN_MIRROR", "http://deb.debian.org/debian"),
    "include": ["python3", "python3-pytest", "python3-coverage", "python-is-python3"],
    "user": {"name": SANDBOX_USER, "uid": SANDBOX_UID},
    "changes": [
        f"USER {SANDBOX_UID}:{SANDBOX_UID}",
        "WORKDIR /workspace",
        "ENV PATH=/usr/local/bin:/usr/bin:/bin",
        "ENV LANG=C.UTF-8",
        "ENV HOME=/tmp",
        "ENV PYTHONDONTWRITEBYTECODE=1",
        'CMD ["/bin/sh"]',
    ],
}
# Trimmed from the rootfs after debootstrap (keeps the image small; nothing runs apt).
_TRIM = [
    "var/cache/apt/archives",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
]


def recipe_hash(recipe: dict = RECIPE) -> str:
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()


@dataclass
class BuildReport:
    image: str
    image_id: str
    recipe: str
    built: bool  # False when an image with this recipe already existed
    rootfs_cached: bool  # True when the debootstrap tarball came from the cache
    seconds: float


def _client():
    try:
        import docker  # noqa: PLC0415

        client = docker.from_env(timeout=600)
        client.ping()
        return client
    except Exception as exc:  # noqa: BLE001 — any failure means "no engine"
        raise SandboxError(f"Docker engine not reachable: {exc}") from None


def find_recipe_image(client, recipe: str):
    """The base image of ``recipe``. Images built FROM it (agent and node images) inherit its
    labels, so only an image that is the imported rootfs itself counts: no parent layers."""
    imgs = client.images.list(filters={"label": f"{RECIPE_LABEL}={recipe}"})
    own = [i for i in imgs if not any(k in (i.labels or {}) for k in DERIVED_LABELS) and len(i.history()) == 1]
    return own[0] if own else None


# Labels of images built FROM gauntlet-base (they inherit its recipe label).
DERIVED_LABELS = ("gauntlet.agent", "gauntlet.node.inputs")


def _post_process(root: Path, recipe: dict) -> None:
    user = recipe["user"]
    uid, name = user["uid"], user["name"]
    with open(root / "etc/passwd", "a") as f:
        f.write(f"{name}:x:{uid}:{uid}:gauntlet sandbox:/tmp:/bin/sh\n")
    with open(root / "etc/group", "a") as f:
        f.write(f"{name}:x:{uid}:\n")
    ws = root / "workspace"
    ws.mkdir(exist_ok=True)
    os.chown(ws, uid, uid)
    for rel in _TRIM:
        p = root / rel
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
            p.mkdir(parents=True, exist_ok=True)
    # Debian's python3 writes no bytecode for the system tree at runtime (root fs is RO).
    if not (root / "usr/bin/python").exists():
        os.symlink("python3", root / "usr/bin/python")


def build_rootfs(recipe: dict, dest: Path, log: Callable[[str], None] = print) -> None:
    """debootstrap into a temp dir and write the rootfs as a tarball at ``dest``."""
    if not shutil.which("debootstrap"):
        raise SandboxError("debootstrap is not installed (apt-get install -y debootstrap)")
    work = Path(tempfile.mkdtemp(prefix="gauntlet-rootfs-", dir=dest.parent))
    root = work / "rootfs"
    try:
        cmd = [
            "debootstrap",
            f"--variant={recipe['variant']}",
            "--include=" + ",".join(recipe["include"]),
            recipe["suite"],
            str(root),
            recipe["mirror"],
        ]
        log("running: " + " ".join(cmd))
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise SandboxError("debootstrap failed: " + " | ".join(tail))
        _post_process(root, recipe)
        tmp = dest.with_suffix(".part")
        with tarfile.open(tmp, "w") as tar:
            # numeric ids, no link following: the rootfs goes in exactly as built
            for entry in sorted(os.listdir(root)):
                tar.add(root / entry, arcname=entry, recursive=True)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def base_build_key(recipe: dict = RECIPE) -> str:
    """The build lock's and the build-time record's key of the base image."""
    return f"{BASE_IMAGE}-{recipe_hash(recipe)[:16]}"


def build_image(
    force: bool = False, log: Callable[[str], None] = print, recipe: dict = RECIPE, repository: str = BASE_IMAGE
) -> BuildReport:
    """Build ``gauntlet-base:latest`` unless an image with this recipe exists. One build
    per recipe at a time across processes (``buildlock``): the others wait, then find it."""
    t0 = time.monotonic()
    client = _client()
    h = recipe_hash(recipe)
    name = f"{repository}:{BASE_TAG}"

    def present():
        if force:
            return None
        existing = find_recipe_image(client, h)
        if existing is None:
            return None
        if name not in existing.tags:
            existing.tag(repository, BASE_TAG)
        return BuildReport(name, existing.id, h, False, True, time.monotonic() - t0)

    def build() -> BuildReport:
        tarball = cache_dir() / f"rootfs-{h[:16]}.tar"
        cached = tarball.exists()
        if not cached:
            build_rootfs(recipe, tarball, log)
        else:
            log(f"using cached rootfs {tarball}")
        changes = list(recipe["changes"]) + [f"LABEL {RECIPE_LABEL}={h}", "LABEL gauntlet=1"]
        log(f"importing {tarball} as {name}")
        try:
            client.api.import_image_from_file(str(tarball), repository=repository, tag=BASE_TAG, changes=changes)
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker import of {tarball} failed: {exc}") from None
        img = find_recipe_image(client, h)
        if img is None:
            raise SandboxError(f"docker import of {tarball} produced no image labelled {h[:12]}")
        return BuildReport(name, img.id, h, True, cached, time.monotonic() - t0)

    report, _built = locked_build(base_build_key(recipe), present, build, on_wait=log)
    return report


def image_status(client=None) -> dict:
    """What ``gauntlet sandbox check`` reports about the base image."""
    client = client or _client()
    h = recipe_hash()
    img = find_recipe_image(client, h)
    return {
        "image": f"{BASE_IMAGE}:{BASE_TAG}",
        "recipe": h,
        "present": img is not None,
        "id": img.id if img is not None else None,
    }


def ensure_image(client, image: str, log: Callable[[str], None] | None = None) -> str:
    """Resolve a manifest's ``sandbox.image`` to a present image, building the base one
    (``log`` hears the build's steps, and "waiting for another build" when one runs elsewhere).

    Raises SandboxError naming the image when it is neither present nor buildable."""
    from docker.errors import ImageNotFound  # noqa: PLC0415

    ref = image if ":" in image.rsplit("/", 1)[-1] else f"{image}:latest"
    try:
        client.images.get(ref)
        return ref
    except ImageNotFound:
        pass
    except Exception as exc:  # noqa: BLE001
        raise SandboxError(f"sandbox.image {image!r}: cannot inspect: {exc}") from None
    if ref == f"{BASE_IMAGE}:{BASE_TAG}":
        try:
            build_image(log=log or (lambda _m: None))
            return ref
        except SandboxError as exc:
            raise SandboxError(f"sandbox.image {image!r} is missing and could not be built: {exc}") from None
    raise SandboxError(
        f"sandbox.image {image!r} is not present and cannot be built here "
        f"(no registry; only {BASE_IMAGE!r} is built by `gauntlet sandbox build`)"
    )
