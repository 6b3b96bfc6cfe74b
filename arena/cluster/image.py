"""The ``gauntlet-node`` image: a Ray node with the project and its local sandbox backend.

No registry: ``FROM gauntlet-base`` (the debootstrap Debian image) plus a tree of wheels
installed on this machine with ``pip install --target`` (the project built from this
checkout, Ray at the version installed here, every dependency as a cp311 manylinux wheel
from the package index), the host's ``bwrap`` (Debian bookworm, same libraries as the
base) and a ``ray`` launcher. Nodes run as root in a privileged container: the local
sandbox backend needs namespaces and cgroups. Labelled with a hash of its inputs; an
image with that label is reused.

    python -m arena.cluster.image        # builds (or finds) it; prints its image id

``build_node_image`` returns the image *id* of this checkout's inputs: several checkouts
sharing one Docker engine each tag their build ``gauntlet-node:latest``, so the tag names
whichever was built last, while the id is this one's (give it to ``DockerCluster(image=)``).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NODE_IMAGE = "gauntlet-node:latest"
LABEL = "gauntlet.node.inputs"
PROJECT = Path(__file__).resolve().parents[2]
LAUNCHER = (
    '#!/bin/sh\nexec python3 -c "import sys; from ray.scripts.scripts import main; '
    'sys.argv[0] = \'ray\'; sys.exit(main())" "$@"\n'
)


def _run(cmd: list[str], what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-8:]
        raise RuntimeError(f"{what} failed (exit {p.returncode}): " + " | ".join(tail))


def _inputs_hash(ray_version: str) -> str:
    h = hashlib.sha256(f"ray=={ray_version}\n{LAUNCHER}".encode())
    for sub in ("arena", "store", "gauntlet_tui"):
        for f in sorted((PROJECT / sub).rglob("*")):
            if f.name in ("testbed.py", "image.py") and f.parent.name == "cluster":
                continue  # run on this machine only, never on a node
            if f.is_file() and "__pycache__" not in f.parts:
                h.update(str(f.relative_to(PROJECT)).encode() + b"\0" + f.read_bytes())
    h.update((PROJECT / "pyproject.toml").read_bytes())
    return h.hexdigest()[:32]


def build_node_image(force: bool = False, log=print) -> str:
    import docker  # noqa: PLC0415
    import ray  # noqa: PLC0415 - the nodes get exactly the Ray this machine has

    client = docker.from_env()
    label = _inputs_hash(ray.__version__)
    found = client.images.list(filters={"label": f"{LABEL}={label}"})
    if not force and found:
        return str(found[0].id)
    ctx = Path(tempfile.mkdtemp(prefix="gauntlet-node-ctx-"))
    try:
        log("building the project wheel")
        _run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(ctx / "whl"), str(PROJECT)],
            "pip wheel of the project",
        )
        wheel = next((ctx / "whl").glob("*.whl"))
        log(f"installing {wheel.name} + ray[default]=={ray.__version__} into the node tree")
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-compile",
                "--only-binary=:all:",
                "--target",
                str(ctx / "lib"),
                f"ray[default]=={ray.__version__}",
                str(wheel),
            ],
            "pip install of the node tree",
        )
        for f in (ctx / "lib" / "bin").glob("*"):  # the host python's launchers, but not the
            if f.name != "ruff":  # ruff binary itself (the quality judge finds it beside its package)
                f.unlink()
        shutil.copy2(shutil.which("bwrap") or "/usr/bin/bwrap", ctx / "bwrap")
        (ctx / "ray").write_text(LAUNCHER)
        (ctx / "ray").chmod(0o755)
        (ctx / "bwrap").chmod(0o755)
        (ctx / "Dockerfile").write_text(
            "FROM gauntlet-base:latest\n"
            "USER 0:0\n"
            "COPY lib /opt/gauntlet-node/lib\n"
            "COPY bwrap /usr/bin/bwrap\n"
            "COPY ray /usr/local/bin/ray\n"
            "ENV PYTHONPATH=/opt/gauntlet-node/lib HOME=/root PYTHONDONTWRITEBYTECODE=1\n"
            "WORKDIR /root\n"
        )
        log(f"docker build {NODE_IMAGE}")
        image, _logs = client.images.build(
            path=str(ctx),
            tag=NODE_IMAGE,
            rm=True,
            forcerm=True,
            pull=False,
            # gauntlet.recipe is reset: FROM would inherit the base's, and
            # the base builder would then take this image for the base.
            labels={LABEL: label, "gauntlet": "node", "gauntlet.recipe": "none"},
        )
    finally:
        shutil.rmtree(ctx, ignore_errors=True)
    return str(image.id)


if __name__ == "__main__":
    print(build_node_image(force="--force" in sys.argv))
