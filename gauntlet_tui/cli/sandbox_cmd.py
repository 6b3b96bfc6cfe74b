"""``gauntlet sandbox build|check|cleanup``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import Any


def register(subparsers) -> None:
    p = subparsers.add_parser("sandbox", help="build the sandbox image, check the backends")
    sub = p.add_subparsers(dest="sandbox_command", metavar="SUBCOMMAND", required=True)
    b = sub.add_parser("build", help="build gauntlet-base from Debian packages (debootstrap)")
    b.add_argument("--force", action="store_true", help="rebuild even if the recipe's image exists")
    b.add_argument(
        "--agent",
        metavar="NAME",
        help="build a built-in adapter's image (gauntlet-agent-NAME: gauntlet-base + the agent's wheels)",
    )
    b.set_defaults(func=cmd_build)
    c = sub.add_parser("check", help="which sandbox backends work here")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_check)
    k = sub.add_parser("cleanup", help="remove sandboxes left behind by crashed runs")
    k.set_defaults(func=cmd_cleanup)


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_build(args) -> int:
    """Build gauntlet-base (or an adapter's image): every log line on stderr as it comes, and
    a progress line with the step at least every 10 s while a step is silent (issue 34)."""
    import asyncio  # noqa: PLC0415

    from arena.attempt.prepare import Preparation, PrepareError, Step, run_printing  # noqa: PLC0415
    from arena.sandbox.image import BASE_IMAGE, BASE_TAG, base_build_key, build_image  # noqa: PLC0415

    if getattr(args, "agent", None):
        return _build_agent(args)
    reports: list = []

    async def work(log) -> None:
        def tell(msg: str) -> None:
            _stderr(msg)
            log(msg)

        reports.append(await asyncio.to_thread(build_image, args.force, tell))

    prep = Preparation([Step(f"image {BASE_IMAGE}:{BASE_TAG}", base_build_key(), work)], backend="docker")
    try:
        asyncio.run(run_printing(prep, sys.stderr, echoed=True))
    except PrepareError as exc:
        print(f"gauntlet: sandbox build failed: {_why(exc)}", file=sys.stderr)
        return 1
    r = reports[0]
    verb = "built" if r.built else "up to date"
    print(
        f"{r.image} {verb} (id {r.image_id[7:19]}, recipe {r.recipe[:12]}, "
        f"{r.seconds:.1f}s{', cached rootfs' if r.built and r.rootfs_cached else ''})"
    )
    return 0


def _build_agent(args) -> int:
    import asyncio  # noqa: PLC0415
    import time  # noqa: PLC0415

    from arena.adapters import build as b  # noqa: PLC0415
    from arena.adapters import get_adapter  # noqa: PLC0415
    from arena.attempt.prepare import Preparation, PrepareError, run_printing  # noqa: PLC0415
    from arena.errors import UsageError  # noqa: PLC0415

    t0 = time.monotonic()
    try:
        get_adapter(args.agent)
    except UsageError as exc:
        print(f"gauntlet: sandbox build --agent: {exc}", file=sys.stderr)
        return 2
    prep = Preparation.agent_image(args.agent, force=args.force, echo=_stderr)
    try:
        asyncio.run(run_printing(prep, sys.stderr, echoed=True))
    except PrepareError as exc:
        print(f"gauntlet: sandbox build --agent {args.agent} failed: {_why(exc)}", file=sys.stderr)
        return 1
    print(f"{b.image_ref(args.agent)} ready ({time.monotonic() - t0:.1f}s)")
    return 0


def _why(exc: Exception) -> str:
    """A failed step's reason without its label (the command line names it) or the hint."""
    from arena.attempt.prepare import LOCAL_HINT  # noqa: PLC0415

    return str(exc).split(" failed: ", 1)[-1].removesuffix(f" — {LOCAL_HINT}")


def _local_status() -> dict:
    from arena.sandbox import cgroups  # noqa: PLC0415

    bwrap = shutil.which("bwrap")
    out: dict = {"available": bool(bwrap), "bwrap": bwrap}
    if bwrap:
        v = subprocess.run([bwrap, "--version"], capture_output=True, text=True)
        out["version"] = v.stdout.strip()
        try:
            from arena.sandbox.local_backend import LocalBackend  # noqa: PLC0415

            be = LocalBackend()
            out["mode"] = "root+setpriv" if be.privileged else "unprivileged userns"
            out["limits"] = "cgroup v1" if be.use_cgroups else "rlimits"
        except Exception as exc:  # noqa: BLE001
            out["available"], out["error"] = False, str(exc)
    out["cgroups"] = cgroups.available()
    return out


def _docker_status() -> dict:
    from arena.sandbox import docker_available  # noqa: PLC0415
    from arena.sandbox.image import image_status  # noqa: PLC0415

    if not docker_available():
        return {"available": False, "error": "Docker engine does not answer"}
    st = image_status()
    return {
        "available": st["present"],
        "engine": True,
        **st,
        **({} if st["present"] else {"error": "run `gauntlet sandbox build`"}),
    }


def cmd_check(args) -> int:
    report: dict[str, Any] = {"local": _local_status(), "docker": _docker_status()}
    report["default"] = "docker" if report["docker"].get("engine") else "local"
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name in ("docker", "local"):
            st = report[name]
            mark = "ok" if st["available"] else "unavailable"
            extra = st.get("error") or ", ".join(
                f"{k}={st[k]}" for k in ("image", "recipe", "version", "mode", "limits") if st.get(k)
            )
            print(f"{name:7} {mark:12} {extra}")
        print(f"default backend: {report['default']}")
    return 0 if (report["local"]["available"] or report["docker"]["available"]) else 1


def cmd_cleanup(args) -> int:  # noqa: ARG001
    from arena.sandbox import cleanup_stale  # noqa: PLC0415

    r = cleanup_stale()
    print(f"removed {r['containers']} containers, {r['cgroups']} cgroups, {r['dirs']} dirs")
    return 0
