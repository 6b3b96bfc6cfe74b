"""The image of an imported task: its Dockerfile, with the gauntlet layer on top.

The layer makes the task's paths the sandbox's: the task's WORKDIR (``/app``) becomes a
link to ``/workspace`` (the agent's workspace, and the judge's read-only copy), ``/tests``
a link to the judge-side tests (mounted only in the judge's sandbox, so they exist there
only, as Harbor mounts them only at verification), ``/logs/verifier`` a link to the
judge run's output directory (where ``reward.txt`` is read); then the sandbox's user
(``SANDBOX_UID``), WORKDIR and environment. The agent client (``gauntlet-agent``) and the
observer hooks are mounted read-only by the arena at run time, as for ``gauntlet-base``:
nothing of them is baked in.

No registry is reachable here: every ``FROM`` must name an image present locally; one
that is not is an error naming it and what would provide it, never a pull that hangs.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import yaml

from arena.pipeline.task_import import ImportError_, dockerfile_lines
from arena.sandbox.image import SANDBOX_UID

LAYER = """
# --- gauntlet layer (arena/pipeline/task_image.py) ---
USER root
RUN set -e; for d in {workdir} /tests /logs/verifier; do rm -rf "$d"; done; \\
    mkdir -p /workspace /logs; ln -s /workspace {workdir}; \\
    ln -s /judge/tests/1/static /tests; ln -s /judge-out /logs/verifier; \\
    (id -u {uid} >/dev/null 2>&1 || echo 'sandbox:x:{uid}:{uid}::/tmp:/bin/sh' >> /etc/passwd)
USER {uid}:{uid}
WORKDIR /workspace
ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8
LABEL gauntlet.task={tag}
"""


def base_images(dockerfile: Path) -> list[str]:
    """The external images the Dockerfile's FROM lines name (not its own stages, not scratch)."""
    stages: set[str] = set()
    out = []
    for ins, arg in dockerfile_lines(dockerfile):
        if ins != "FROM":
            continue
        parts = [p for p in arg.split() if not p.startswith("--")]
        if not parts:
            raise ImportError_(f"{dockerfile.name}: FROM without an image")
        name = parts[0]
        if len(parts) >= 3 and parts[1].lower() == "as":
            stages.add(parts[2].lower())
        if name.lower() in stages or name == "scratch" or name in out:
            continue
        out.append(name)
    return out


def _present(image: str) -> bool:
    r = subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=60)
    return r.returncode == 0


def missing_bases(dockerfile: Path) -> list[str]:
    return [b for b in base_images(dockerfile) if "$" not in b and not _present(b)]


def build(package: Path | str, *, timeout_s: float = 1800) -> str:
    """Build the package's task image (``sandbox.image``) unless present; its tag."""
    package = Path(package)
    manifest = yaml.safe_load((package / "challenge.yaml").read_text(encoding="utf-8"))
    tag = manifest["sandbox"]["image"]
    workdir = (manifest.get("x-import") or {}).get("workdir") or "/app"
    env = package / "environment"
    dockerfile = env / "Dockerfile"
    if not dockerfile.is_file():
        raise ImportError_(f"{dockerfile}: required file missing: expected the task's Dockerfile")
    if _present(tag):
        return tag
    missing = missing_bases(dockerfile)
    if missing:
        raise ImportError_(
            f"environment/Dockerfile: FROM {missing[0]}: not present locally and no registry is reachable here:"
            f" expected a local image (provide it with 'docker pull {missing[0]}' where a registry answers, then"
            f" 'docker save' / 'docker load'; gauntlet-base is local: 'gauntlet sandbox build')"
        )
    text = dockerfile.read_text(encoding="utf-8") + LAYER.format(workdir=workdir, tag=tag, uid=SANDBOX_UID)
    with tempfile.NamedTemporaryFile("w", suffix=".Dockerfile", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        r = subprocess.run(
            ["docker", "build", "-q", "-t", tag, "-f", path, str(env)], capture_output=True, timeout=timeout_s
        )
    finally:
        Path(path).unlink(missing_ok=True)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).decode("utf-8", "replace").strip()[-800:]
        raise ImportError_(f"environment/Dockerfile: docker build failed: {tail}")
    return tag
