"""``gauntlet doctor``: one screen of what is installed, what is missing and the one
command that fixes each. Exit 0 when everything needed is there, 1 otherwise.

Needed: Python >= 3.11, the Python dependencies, and one working sandbox backend
(bubblewrap, or the Docker engine). The rest (debootstrap, images, runsc, cgroups, the
kernel's process connector and fanotify) is reported as optional: without it a part of
the system is slower or less observed, never broken."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

APT = "apt-get install -y"
SUDO = "" if os.geteuid() == 0 else "sudo "


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    needed: bool = False


def register(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="what is installed, what is missing, and how to fix it")
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="check every node of a Ray cluster (ray://head:10001, host:6379, auto)",
    )
    p.set_defaults(func=cmd_doctor)


def _run(argv: list[str], timeout: float = 10.0) -> tuple[int, str]:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, str(exc)
    return r.returncode, (r.stdout.strip() or r.stderr.strip())


def python_checks() -> list[Check]:
    v = sys.version_info
    out = [
        Check(
            "python",
            v >= (3, 11),
            f"{sys.executable} {v.major}.{v.minor}.{v.micro}",
            "sh scripts/install.sh (a venv on the system's python3 >= 3.11)",
            True,
        )
    ]
    try:
        reqs = metadata.requires("gauntlet-arena") or []
    except metadata.PackageNotFoundError:
        return out + [Check("python deps", False, "gauntlet-arena is not installed", "sh scripts/install.sh", True)]
    missing = []
    for req in reqs:
        if "extra ==" in req:
            continue
        name = req.split(";")[0].split("[")[0]
        for sep in "=<>!~ ":
            name = name.split(sep)[0]
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    out.append(
        Check(
            "python deps",
            not missing,
            "all installed" if not missing else "missing: " + ", ".join(missing),
            f"{sys.executable} -m pip install " + " ".join(missing),
            True,
        )
    )
    return out


def sandbox_checks() -> list[Check]:
    out = [
        Check(
            "user",
            True,
            "root"
            if os.geteuid() == 0
            else f"uid {os.geteuid()} (the local sandbox needs unprivileged user namespaces)",
        )
    ]
    bwrap = shutil.which("bwrap")
    if bwrap:
        rc, msg = _run([bwrap, "--ro-bind", "/", "/", "--unshare-all", "true"])
        out.append(
            Check(
                "bwrap",
                rc == 0,
                bwrap if rc == 0 else f"{bwrap} fails: {msg[:80]}",
                f"{SUDO}sysctl -w kernel.unprivileged_userns_clone=1",
            )
        )
    else:
        out.append(Check("bwrap", False, "not installed (the local sandbox)", f"{SUDO}{APT} bubblewrap"))
    deb = shutil.which("debootstrap", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    out.append(
        Check(
            "debootstrap",
            bool(deb),
            deb or "not installed (builds the gauntlet-base image)",
            f"{SUDO}{APT} debootstrap",
        )
    )
    rc, version = (
        _run(["docker", "version", "--format", "{{.Server.Version}}"])
        if shutil.which("docker")
        else (127, "no docker command")
    )
    engine = rc == 0
    out.append(
        Check(
            "docker engine",
            engine,
            f"version {version}" if engine else version[:80],
            f"{SUDO}{APT} docker.io && {SUDO}systemctl start docker",
        )
    )
    if engine:
        rc, images = _run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"])
        have = sorted(i for i in images.split() if i.startswith("gauntlet-"))
        out.append(
            Check(
                "images",
                "gauntlet-base:latest" in have,
                ", ".join(have) or "no gauntlet images",
                "gauntlet sandbox build",
            )
        )
        out.append(uid_check())
        runsc = shutil.which("runsc")
        rc, info = _run(["docker", "info", "--format", "{{json .Runtimes}}"])
        out.append(
            Check(
                "runsc (gVisor)",
                bool(runsc) and "runsc" in info,
                "registered with docker"
                if runsc and "runsc" in info
                else (runsc or "not installed") + " (optional: a stronger Docker sandbox)",
                "see https://gvisor.dev/docs/user_guide/install/ (optional)",
            )
        )
    return out


def uid_check() -> Check:
    """The Docker sandbox's uid must be no host account's: a host process of that uid could
    read the agent's /proc/<pid>/environ (its gateway token) and signal its processes."""
    import pwd

    from arena.sandbox.image import SANDBOX_UID

    try:
        who = pwd.getpwuid(SANDBOX_UID).pw_name
    except KeyError:
        return Check("sandbox uid", True, f"{SANDBOX_UID}: no host account has it")
    return Check(
        "sandbox uid",
        False,
        f"{SANDBOX_UID} is the host account {who!r}: its processes could read a Docker agent's token",
        f"{SUDO}usermod -u <another uid> {who}",
    )


def reach_checks(copies: list[Path] | None = None, store_dirs: list[Path] | None = None) -> list[Check]:
    """What a host agent's uid could read of this install (issue 36): the hidden tests and
    solutions of the bundled packages (every copy found: ``reach.bundled_copies``) and the
    stores of the working directory and ``$GAUNTLET_STORE``. Host agents get what is found
    hidden at each start; a copy elsewhere (another checkout) is not found, hence the fix."""
    from arena.agents import reach
    from arena.sandbox.quota import UID_BASE

    uid = UID_BASE  # any pool uid: none owns these files
    copies = reach.bundled_copies() if copies is None else copies
    if store_dirs is None:
        store_dirs = [Path.cwd(), Path(os.environ.get("GAUNTLET_STORE", "gauntlet.db")).absolute().parent]
    open_tests = {c: n for c in copies if (n := sum(reach.readable_by(s, uid) for s in reach.secrets_of(c)))}
    if open_tests:
        where = "; ".join(f"{n} under {c}" for c, n in open_tests.items())
        dirs = " ".join(f"{c}/*/tests {c}/*/solution {c}/*/phases" for c in open_tests)
        tests = Check(
            "hidden tests",
            False,
            f"readable by other uids: {where} (hidden from host agents; another copy would not be)",
            f"{SUDO}chmod -R o-rwx {dirs} (when only root runs the arena)",
        )
    else:
        tests = Check("hidden tests", True, f"bundled hidden tests unreadable by other uids ({len(copies)} copies)")
    open_stores = reach.readable_stores(uid, store_dirs)
    if open_stores:
        names = " ".join(str(p) for p in open_stores)
        stores = Check("stores", False, f"readable by other uids: {names}", f"{SUDO}chmod o-rwx {names}")
    else:
        stores = Check("stores", True, "no store here is readable by other uids")
    return [tests, stores]


def judge_checks(python: str | None = None) -> list[Check]:
    """What the local judge runs its tests with (issue 26): the host's python3 (the local
    sandbox binds /usr) must import pytest; coverage is optional."""
    from arena.judge.run.requirements import check

    n = check(python)
    if n.error:
        return [Check("judge (local)", False, n.error, f"{SUDO}{APT} python3 python3-pytest")]
    if n.missing:
        detail = f"{n.python} has no {', '.join(n.missing)}: every local-backend submission would be an infra_error"
        return [Check("judge (local)", False, detail, f"{SUDO}{APT} {n.packages(n.missing + n.missing_optional)}")]
    out = [Check("judge (local)", True, f"{n.python}: pytest importable")]
    if n.missing_optional:
        out.append(
            Check(
                "judge coverage",
                False,
                f"{n.python} has no coverage (coverage feedback is empty)",
                f"{SUDO}{APT} {n.packages(n.missing_optional)}",
            )
        )
    return out


def kernel_checks() -> list[Check]:
    v2 = Path("/sys/fs/cgroup/cgroup.controllers")
    controllers = v2.read_text().split() if v2.exists() else []
    out = [
        Check(
            "cgroups v2",
            bool(controllers),
            " ".join(controllers) if controllers else "no cgroup v2 (limits fall back to rlimits)",
            "boot with systemd.unified_cgroup_hierarchy=1 (optional)",
        )
    ]
    try:
        from arena.observe.netlink import open_socket

        open_socket().close()
        out.append(Check("proc connector", True, "process events observable"))
    except OSError as exc:
        out.append(
            Check(
                "proc connector",
                False,
                f"{exc.strerror or exc} (commands are not observed)",
                f"run as root: {SUDO}gauntlet ...",
            )
        )
    try:
        from arena.observe.reads import ReadWatcher

        ReadWatcher().close()
        out.append(Check("fanotify", True, "workspace reads observable"))
    except OSError as exc:
        out.append(Check("fanotify", False, f"{exc} (reads are not observed)", f"run as root: {SUDO}gauntlet ..."))
    return out


def provider_checks(env=os.environ) -> list[Check]:
    """One line per model provider (issue 21): checked with one cheap call when a key or a
    base URL is set; optional otherwise (only agents with a model need one)."""
    from arena.gateway.preflight import check_provider

    out = []
    for provider in ("openai", "anthropic"):
        c = check_provider(provider, env)
        if not c.ok and not c.configured and c.variable.endswith("_API_KEY"):
            out.append(
                Check(
                    f"provider {provider}",
                    False,
                    f"{c.variable} is not set (only agents with an {provider}/... model need it)",
                    f"export {c.variable}=...",
                )
            )
            continue
        out.append(Check(f"provider {provider}", c.ok, c.detail, f"fix {c.variable}" if c.variable else ""))
    return out


def agent_checks(images: str = "") -> list[Check]:
    """One line per built-in adapter: its tree (local backend) and its image (Docker)."""
    try:
        from arena.adapters import get_adapter, names
        from arena.adapters.build import image_ref, tree_path
    except Exception as exc:  # noqa: BLE001 — a broken install is reported, not raised
        return [Check("agents", False, f"cannot load the adapters: {exc}")]
    out = []
    for name in names():
        ad = get_adapter(name)
        tree = (tree_path(name) / ".complete").exists()
        ref = image_ref(name)
        image = ref in images.split()
        state = [f"tree {'built' if tree else 'not built'}"]
        if images:
            state.append(f"image {ref} {'present' if image else 'missing'}")
        out.append(
            Check(
                f"agent {name}",
                tree or image,
                f"{ad.package}=={ad.version}: " + ", ".join(state),
                f"gauntlet sandbox build --agent {name} (or built on first use)",
            )
        )
    return out


def diagnose() -> tuple[list[Check], bool]:
    checks = python_checks() + sandbox_checks() + judge_checks() + kernel_checks() + provider_checks()
    checks += reach_checks()
    rc, images = (
        _run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"]) if shutil.which("docker") else (1, "")
    )
    checks += agent_checks(images if rc == 0 else "")
    by = {c.name: c for c in checks}
    backend = by["bwrap"].ok or by["docker engine"].ok
    if not backend:  # one of them is needed: flag both
        by["bwrap"].needed = by["docker engine"].needed = True
    by["judge (local)"].needed = by["bwrap"].ok  # the local backend judges with the host's python3
    ok = all(c.ok for c in checks if c.needed) and backend
    return checks, ok


def cmd_doctor(args) -> int:
    if getattr(args, "cluster", None):
        return cluster_doctor(args.cluster)
    checks, ok = diagnose()
    for c in checks:
        mark = "ok  " if c.ok else ("MISS" if c.needed else "--  ")
        print(f"{mark} {c.name:22} {c.detail}")
        if not c.ok and c.fix:
            print(f"     {'':22} fix: {c.fix}")
    print(
        "ready: everything needed is installed"
        if ok
        else "NOT ready: fix the MISS lines above (the -- lines are optional)"
    )
    return 0 if ok else 1


def node_line(r) -> str:
    """One node of ``gauntlet doctor --cluster``: ok/MISS, the node, its slots, what was
    checked, and the fix of the first thing missing."""
    n = r.node
    slots = f"{n.total} slot{'s' if n.total != 1 else ''}" + (f" ({n.free} free)" if n.free is not None else "")
    where = f"{n.host:10} {n.address:15} {'head, ' if n.head else ''}{slots}"
    if r.error:
        return f"MISS {where}  check did not run: {r.error}  fix: is the node alive and running `ray start`?"
    missing = [c for c in r.checks if not c["ok"] and c["needed"]]
    said = "; ".join(f"{c['name']} {c['detail']}" for c in r.checks if c["name"] in ("backend", "image", "runtime"))
    optional = [c["name"] for c in r.checks if not c["ok"] and not c["needed"]]
    tail = f" (optional, missing: {', '.join(optional)})" if optional else ""
    if not missing:
        return f"ok   {where}  {said}{tail}"
    first = missing[0]
    mark = "MISS" if r.counts else "--  "
    note = "" if r.counts else " (no slots: runs no attempts)"
    return (
        f"{mark} {where}  missing: "
        + "; ".join(f"{c['name']} {c['detail']}" for c in missing)
        + f"{note}  fix: {first['fix']}"
    )


def cluster_doctor(address: str) -> int:
    from arena.cluster.nodecheck import check_cluster  # noqa: PLC0415 — Ray only now

    report = check_cluster(address)
    snap = report.snapshot
    print(
        f"cluster {address}: {len(snap.alive)} node(s), {snap.total} gauntlet_slot(s)"
        + (f", {snap.cluster_free} free" if snap.cluster_free is not None else "")
    )
    for r in report.nodes:
        print(node_line(r))
    for n in snap.lost:
        print(f"--   {n.host:10} {n.address:15} lost (Ray marks it dead)")
    if not snap.total:
        print(
            "NOT ready: no node offers the gauntlet_slot resource; fix: ray start ... "
            "--resources='{\"gauntlet_slot\": N}' on each worker"
        )
    print("ready: every node with slots has what it needs" if report.ok else "NOT ready: fix the MISS lines above")
    return 0 if report.ok else 1
