"""The image of an imported task: its Dockerfile, with the gauntlet layer on top.

The layer makes the task's paths the sandbox's: the task's WORKDIR (``/app``) becomes a
link to ``/workspace`` (the agent's workspace, and the judge's read-only copy), ``/tests``
a link to the judge-side tests (mounted only in the judge's sandbox, so they exist there
only, as Harbor mounts them only at verification), ``/logs/verifier`` a link to the
judge run's output directory (where ``reward.txt`` is read); then the sandbox's user
(``SANDBOX_UID``), WORKDIR and environment. The agent client (``gauntlet-agent``) and the
observer hooks are mounted read-only by the arena at run time, as for ``gauntlet-base``:
nothing of them is baked in.

A ``FROM`` image not present locally is pulled (``docker pull``, bounded by
``PULL_TIMEOUT_S``: where no registry answers it fails at once); one still missing is
``MissingBase`` naming it and what would provide it (``docker pull`` where a registry
answers, ``docker save``/``docker load`` to carry it over), never a pull that hangs. The
CLI imports the package anyway (``built: false``, exit 0: issue 37).

A build is isolated (issue 36): every step runs with ``--network none`` except a ``RUN``
the Dockerfile declares needs the network (``RUN --network=default ...``, BuildKit's own
spelling); ``network_steps`` names those for the operator. The legacy builder runs a whole
build on one network, so a Dockerfile with such steps is built in segments, each
``FROM`` the previous one's image: the declared steps on Docker's default bridge, the
rest with ``--network none``. ``--network=host`` is refused. The manifest values pasted
into the layer (``x-import.workdir``, ``sandbox.image``) are checked and quoted, the build
context is capped (``MAX_CONTEXT_BYTES``, ``MAX_CONTEXT_FILES``) before anything is sent,
and every build runs with ``--force-rm`` (a failed step leaves no container).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import yaml

from arena.pipeline.task_import import ImportError_, dockerfile_lines
from arena.pipeline.task_model import workdir_ok
from arena.sandbox.image import SANDBOX_UID

MAX_CONTEXT_BYTES = 256 * 1024 * 1024  # the build context (environment/), apparent sizes, links not followed
MAX_CONTEXT_FILES = 20_000
PULL_TIMEOUT_S = 300.0  # one docker pull of a missing FROM image (no registry here: it fails in milliseconds)
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9._/-]{0,200}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$")
_NET_HINT = re.compile(
    r"Temporary failure in name resolution|Could not resolve|Network is unreachable|Failed to fetch|"
    r"getaddrinfo|Name or service not known|Connection refused|No route to host",
    re.I,
)

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


class MissingBase(ImportError_):
    """A ``FROM`` image neither present locally nor pulled: the package is fine, the
    machine lacks the image (``images``: the ones missing)."""

    def __init__(self, message: str, images: list[str]):
        super().__init__(message)
        self.images = images


def pull(image: str, *, timeout_s: float | None = None) -> str | None:
    """``docker pull image``, bounded; None when pulled, else why not (one line)."""
    timeout_s = PULL_TIMEOUT_S if timeout_s is None else timeout_s
    try:
        r = subprocess.run(["docker", "pull", "-q", image], capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"docker pull did not finish in {timeout_s:g}s"
    except OSError as e:
        return f"docker pull could not run ({e.strerror or e})"
    if r.returncode == 0 and _present(image):
        return None
    lines = (r.stderr or r.stdout).decode("utf-8", "replace").strip().splitlines()
    return (lines[-1] if lines else f"docker pull exited {r.returncode}")[:300]


def _missing_message(missing: list[str], why: dict[str, str]) -> str:
    first = missing[0]
    more = f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else ""
    reason = f": the pull failed: {why[first]}" if first in why else ""
    return (
        f"environment/Dockerfile: FROM {first}: not present locally and no registry answered{reason}{more}:"
        f" provide it with 'docker pull {first}' where a registry answers, or 'docker save {first} -o base.tar'"
        f" there and 'docker load -i base.tar' here (gauntlet-base is local: 'gauntlet sandbox build'),"
        " then import the task again"
    )


# -- the build's network: declared steps ---------------------------------------------
@dataclass
class Ins:
    line: int  # 1-based, where the instruction starts
    name: str  # upper case
    arg: str  # continuation lines joined
    network: str | None = None  # a RUN's --network= value


def _instructions(dockerfile: Path) -> tuple[list[str], list[Ins]]:
    """The parser directives and the instructions (line numbers kept, comments dropped)."""
    directives: list[str] = []
    out: list[Ins] = []
    buf, start, body = "", 0, False
    for n, raw in enumerate(dockerfile.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not body and not buf and re.match(r"#\s*\w+\s*=", line):
            directives.append(line)
            continue
        if not line or line.startswith("#"):
            body = body or not line.startswith("#")
            continue
        body = True
        if not buf:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        parts = buf.split(None, 1)
        ins = Ins(start, parts[0].upper(), parts[1] if len(parts) > 1 else "")
        if ins.name == "RUN":
            m = re.match(r"((?:--\S+\s+)*)", ins.arg + " ")
            flags = m.group(1).split() if m else []
            for f in flags:
                if f.startswith("--network="):
                    ins.network = f.split("=", 1)[1]
            if ins.network is not None:
                rest = ins.arg[len(m.group(1)) :] if m else ins.arg
                ins.arg = " ".join([*(f for f in flags if not f.startswith("--network=")), rest.strip()])
        out.append(ins)
        buf = ""
    return directives, out


def _where(ins: Ins) -> str:
    text = f"RUN --network={ins.network} {ins.arg}"
    return f"environment/Dockerfile line {ins.line}: {text[:100]}{'...' if len(text) > 100 else ''}"


def network_steps(dockerfile: Path | str) -> list[str]:
    """The steps the Dockerfile declares need the network (``RUN --network=default``), each
    named for the operator; ``ImportError_`` for a network the build does not grant."""
    _, ins = _instructions(Path(dockerfile))
    out = []
    for i in ins:
        if i.network is None or i.network == "none":
            continue
        if i.network != "default":
            raise ImportError_(
                f"{_where(i)}: --network={i.network}: not granted: expected --network=default (Docker's bridge)"
                " for a step that needs the network, or none"
            )
        out.append(
            f"{_where(i)}: runs with network access (Docker's default bridge: outside addresses and the"
            " Docker host); every other step runs with --network none"
        )
    return out


def _segments(dockerfile: Path, temp: str) -> list[tuple[bool, str]]:
    """(networked, Dockerfile text) per build segment; segment n > 0 is built ``FROM {temp}:{n-1}``."""
    network_steps(dockerfile)  # refuses --network=host and the like
    directives, ins = _instructions(dockerfile)
    if all(i.network is None for i in ins):
        return [(False, dockerfile.read_text(encoding="utf-8"))]
    declared = [i for i in ins if i.network == "default"]
    froms = [i for i in ins if i.name == "FROM"]
    if declared and len(froms) > 1:
        raise ImportError_(
            f"{_where(declared[0])}: a step that needs the network in a multi-stage Dockerfile: not built here"
            " (this builder runs a build on one network): expected it in a single-stage Dockerfile"
        )
    if declared and any(d.lower().startswith(("# escape", "#escape")) for d in directives):
        raise ImportError_(
            "environment/Dockerfile: an escape directive with a step that needs the network: expected the default escape"
        )
    head = [f"{i.name} {i.arg}" for i in ins[: ins.index(froms[0])]] if froms else []  # global ARGs
    args: list[str] = []  # the stage's ARG lines so far (re-declared after each segment's FROM)
    # the network is a RUN's only: a segment changes where a RUN needs the other network than
    # the current segment's RUNs had (a segment with no RUN yet just takes the RUN's network)
    segs: list[tuple[bool, list[str]]] = [(False, [*directives, *head])]
    ran = False
    for i in ins[len(head) :]:
        net = i.network == "default"
        text = f"{i.name} {i.arg}"
        if i.name == "RUN" and net != segs[-1][0]:
            if ran:
                segs.append((net, [*directives, *head, f"FROM {temp}:{len(segs) - 1}", *args]))
            else:
                segs[-1] = (net, segs[-1][1])
        ran = ran or i.name == "RUN"
        segs[-1][1].append(text)
        if i.name == "ARG":
            args.append(text)
        if i.name == "ONBUILD" and declared:
            raise ImportError_(f"environment/Dockerfile line {i.line}: ONBUILD with a step that needs the network")
    return [(net, "\n".join(lines) + "\n") for net, lines in segs]


# -- the checks before a build -----------------------------------------------------------
def check_context(env: Path, *, max_bytes: int = MAX_CONTEXT_BYTES, max_files: int = MAX_CONTEXT_FILES) -> None:
    """Refuse a build context over the caps (walked without following links, stopped at the cap)."""
    total = files = 0
    for root, dirs, names in os.walk(env):
        for name in names + dirs:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            files += 1
            total += st.st_size
            if total > max_bytes or files > max_files:
                raise ImportError_(
                    f"environment/: the build context is over the cap ({max_bytes // 2**20} MB, {max_files} entries):"
                    " expected a smaller task environment (large data belongs outside the image)"
                )


def _manifest_values(package: Path) -> tuple[str, str]:
    """``sandbox.image`` and ``x-import.workdir``, refused unless plain (exit 2 naming the key)."""
    try:
        manifest = yaml.safe_load((package / "challenge.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ImportError_(f"challenge.yaml: unreadable ({e})") from None
    sandbox = manifest.get("sandbox") if isinstance(manifest, dict) else None
    tag = sandbox.get("image") if isinstance(sandbox, dict) else None
    if not isinstance(tag, str) or not TAG_RE.match(tag):
        raise ImportError_(
            f"challenge.yaml: key 'sandbox.image': {tag!r}: expected an image tag (lower-case name[:tag], no spaces)"
        )
    lineage = manifest.get("x-import") or {}
    workdir = (lineage.get("workdir") if isinstance(lineage, dict) else None) or "/app"
    if not isinstance(workdir, str) or not workdir_ok(workdir):
        raise ImportError_(
            f"challenge.yaml: key 'x-import.workdir': {workdir!r}: expected an absolute path of letters, digits"
            " and . _ - + / (no spaces, quotes or shell characters)"
        )
    return tag, workdir


def _docker_build(tag: str, text: str, env: Path, *, network: bool, timeout_s: float) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".Dockerfile", delete=False) as f:
        f.write(text)
        path = f.name
    cmd = ["docker", "build", "-q", "--force-rm", *([] if network else ["--network", "none"]), "-t", tag]
    try:
        r = subprocess.run([*cmd, "-f", path, str(env)], capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ImportError_(f"environment/Dockerfile: docker build did not finish in {timeout_s:g}s") from None
    finally:
        Path(path).unlink(missing_ok=True)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).decode("utf-8", "replace").strip()[-800:]
        hint = (
            " (every step runs with --network none: a step that needs the network declares it, RUN --network=default)"
            if not network and _NET_HINT.search(tail)
            else ""
        )
        raise ImportError_(f"environment/Dockerfile: docker build failed: {tail}{hint}")


def build(package: Path | str, *, timeout_s: float = 1800, pull_timeout_s: float | None = None) -> str:
    """Build the package's task image (``sandbox.image``) unless present; its tag."""
    package = Path(package)
    tag, workdir = _manifest_values(package)
    env = package / "environment"
    dockerfile = env / "Dockerfile"
    if not dockerfile.is_file():
        raise ImportError_(f"{dockerfile}: required file missing: expected the task's Dockerfile")
    if _present(tag):
        return tag
    why: dict[str, str] = {}
    for base in missing_bases(dockerfile):
        if base == "gauntlet-base":  # Gauntlet's own image: built here, never on a registry
            why[base] = "gauntlet-base is built by 'gauntlet sandbox build'"
            continue
        err = pull(base, timeout_s=pull_timeout_s)
        if err is not None:
            why[base] = err
    missing = missing_bases(dockerfile) if why else []
    if missing:
        raise MissingBase(_missing_message(missing, why), missing)
    check_context(env)
    temp = f"gauntlet-build-{uuid.uuid4().hex[:12]}"
    segments = _segments(dockerfile, temp)
    layer = LAYER.format(workdir=shlex.quote(workdir), tag=json.dumps(tag), uid=SANDBOX_UID)
    if segments[-1][0]:  # the gauntlet layer never runs on the network
        segments.append((False, f"FROM {temp}:{len(segments) - 1}\n"))
    temps = [f"{temp}:{n}" for n in range(len(segments) - 1)]
    try:
        for n, (net, text) in enumerate(segments):
            last = n == len(segments) - 1
            out, text = (tag, text + layer) if last else (temps[n], text)
            _docker_build(out, text, env, network=net, timeout_s=timeout_s)
    finally:
        if temps:
            subprocess.run(["docker", "rmi", *temps], capture_output=True, timeout=120)
    return tag
