"""Harbor's own task model for the export tests (issue 23): a Python 3.13 image.

Harbor (PyPI ``harbor``) needs Python >= 3.12 and this project runs on Debian 12's 3.11, so
the tests load exported tasks with Harbor in a Docker image of its own:

1. ``gauntlet-trixie:latest``: ``arena.sandbox.image.build_image`` with ``TRIXIE`` (the
   base image's recipe on Debian 13, whose ``python3`` is 3.13): debootstrap, the sandbox
   user, ``docker import``; labelled and cached by the recipe's hash like gauntlet-base.
2. ``gauntlet-harbor:<key16>``: ``docker build`` FROM it with ``lib/``, the wheels of
   ``harbor.lock`` (downloaded on the host for cp313, every hash checked by pip, installed
   offline with ``--target``), byte-compiled in the image. ``key`` hashes the trixie recipe,
   the lock and the Dockerfile; the image carries it as ``gauntlet.harbor=<key>``.

Both builds take ``buildlock``'s cross-process lock and do nothing when an image with their
hash exists, so a machine builds each once. ``.ci/run`` builds it in the background:
``python -m tests.support.harbor_env``. ``check_task(dir)`` runs ``harbor_task_check.py``
on a task directory in that image (``--network none``, the task and the script read-only).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.adapters.treeutil import normalise_modes, run_step
from arena.sandbox.base import SandboxError
from arena.sandbox.buildlock import locked_build
from arena.sandbox.image import RECIPE, SANDBOX_UID, _client, build_image, cache_dir, recipe_hash

HERE = Path(__file__).resolve().parent
LOCK = HERE / "harbor.lock"
CHECK_SCRIPT = HERE / "harbor_task_check.py"
TRIXIE = {**RECIPE, "suite": "trixie", "include": ["python3"]}  # trixie's python3 is 3.13
TRIXIE_REPO = "gauntlet-trixie"
REPO = "gauntlet-harbor"
LABEL = "gauntlet.harbor"
LIB = "/opt/harbor/lib"
PY_TAG = "3.13"
PLATFORMS = ("manylinux_2_34_x86_64", "manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
DOCKERFILE = f"""\
FROM {TRIXIE_REPO}:latest
USER 0:0
COPY lib {LIB}
RUN python3 -m compileall -q -j 2 --invalidation-mode unchecked-hash {LIB}
USER {SANDBOX_UID}:{SANDBOX_UID}
ENV PYTHONPATH={LIB}
"""


def key() -> str:
    inputs = {"trixie": recipe_hash(TRIXIE), "lock": LOCK.read_text(), "dockerfile": DOCKERFILE}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def image_ref() -> str:
    return f"{REPO}:{key()[:16]}"


def present(client=None) -> str | None:
    """The image's ref when an image with the current key exists."""
    client = client or _client()
    found = client.images.list(filters={"label": f"{LABEL}={key()}"})
    if not found:
        return None
    ref = image_ref()
    if ref not in found[0].tags:
        found[0].tag(REPO, key()[:16])
    return ref


def _pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", *args, "--quiet", "--disable-pip-version-check", "--no-deps"]


def _target_args() -> list[str]:
    plats = [a for p in PLATFORMS for a in ("--platform", p)]
    return ["--only-binary=:all:", "--implementation", "cp", "--python-version", PY_TAG, *plats]


def _install_lib(dest: Path, log) -> None:
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    lock = ["--require-hashes", "-r", str(LOCK)]
    run_step([*_pip("download"), *_target_args(), *lock, "-d", str(wheels)], "downloading Harbor's wheels", log)
    # the download checked Requires-Python against 3.13; pip install checks it against itself
    install = [*_pip("install", "--no-index", "--no-compile", "--ignore-requires-python"), *_target_args()]
    install += ["--find-links", str(wheels)]
    run_step([*install, *lock, "--target", str(dest)], "installing Harbor's wheels", log)
    shutil.rmtree(dest / "bin", ignore_errors=True)  # entry points written for the host's python
    normalise_modes(dest)


def _build(client, log) -> str:
    build_image(log=log, recipe=TRIXIE, repository=TRIXIE_REPO)
    t0 = time.monotonic()
    ref = image_ref()
    ctx = Path(tempfile.mkdtemp(prefix=".ctx-harbor-", dir=cache_dir()))
    try:
        _install_lib(ctx / "lib", log)
        (ctx / "Dockerfile").write_text(DOCKERFILE)
        log(f"docker build {ref} from {TRIXIE_REPO}:latest + {LOCK.name}")
        try:
            client.images.build(
                path=str(ctx), tag=ref, rm=True, forcerm=True, pull=False, labels={LABEL: key(), "gauntlet": "1"}
            )
        except Exception as exc:  # noqa: BLE001 — BuildError, APIError: one clear message
            raise SandboxError(f"docker build of {ref} failed: {exc}") from None
    finally:
        shutil.rmtree(ctx, ignore_errors=True)
    log(f"built {ref} in {time.monotonic() - t0:.1f}s")
    return ref


def ensure(log=print) -> str:
    """``gauntlet-harbor:<key16>``, built unless present (one build at a time across processes)."""
    client = _client()
    ref, _built = locked_build(
        f"{REPO}-{key()[:16]}", lambda: present(client), lambda: _build(client, log), on_wait=log
    )
    return ref


def check_task(task: Path, ref: str) -> dict:
    """Harbor's own ``TaskConfig`` and ``Task`` on ``task`` in image ``ref``: what the script
    printed (workdir, name, steps). Raises AssertionError with Harbor's stderr when it fails."""
    cmd = ["docker", "run", "--rm", "--network", "none", "--read-only", "--tmpfs", "/tmp"]
    cmd += ["--user", f"{os.getuid()}:{os.getgid()}"]  # reads the task as its owner does
    cmd += [
        "-v",
        f"{task.resolve()}:/task:ro",
        "-v",
        f"{CHECK_SCRIPT}:/check.py:ro",
        ref,
        "python3",
        "/check.py",
        "/task",
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError(f"Harbor's task model rejected {task} (exit {p.returncode}):\n{p.stderr[-4000:]}")
    return json.loads(p.stdout)


def main() -> int:
    t0 = time.monotonic()
    try:
        ref = ensure()
    except SandboxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    size = _client().images.get(ref).attrs["Size"]
    print(f"{ref}: {size / 1e6:.0f} MB, {time.monotonic() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
