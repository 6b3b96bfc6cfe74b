"""``gauntlet challenge validate|calibrate|audit|publish DIR [--json]``: seed 003 gates 1-5 on a package.

Exit 0 clean (info findings only), 1 findings (any error or warning), 2 unreadable
(no such directory, or a manifest that is missing or cannot be parsed as YAML).
"""

from __future__ import annotations

import argparse

from gauntlet_tui.cli.findings_out import package, report


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("challenge", help="check challenge packages (seed 003 gates)")
    sub = p.add_subparsers(dest="challenge_command", metavar="VERB")
    v = sub.add_parser("validate", help="gates 1 and 2: spec and package completeness")
    v.add_argument("dir", metavar="DIR", help="the challenge package directory (or a bundled challenge id)")
    v.add_argument("--json", action="store_true", help="one JSON document on stdout")
    v.add_argument(
        "--run",
        action="store_true",
        help="also judge the unmodified starter (must fail, not error) and the reference solution (must pass) in a sandbox",
    )
    v.add_argument(
        "--sandbox", choices=("docker", "local"), default=None, help="sandbox for --run (default: docker if it answers)"
    )
    v.add_argument(
        "--time-scale",
        type=float,
        default=None,
        help="--run, an imported task: the clock of its reference and no-op attempts (default: ~1 minute each)",
    )
    v.set_defaults(func=cmd_validate)
    a = sub.add_parser(
        "audit", help="gate 4: answer leakage, trivial shortcuts (deletion, regex, copy attacks), repetition"
    )
    a.add_argument("dir", metavar="DIR", help="the challenge package directory")
    a.add_argument("--json", action="store_true", help="one JSON document on stdout")
    a.add_argument(
        "--static",
        action="store_true",
        help="skip the checks that run in a sandbox (the starter judged as is, the three attacks)",
    )
    a.add_argument(
        "--sandbox", choices=("docker", "local"), default=None, help="sandbox for the starter check and the attacks"
    )
    a.add_argument(
        "--time-scale",
        type=float,
        default=None,
        metavar="X",
        help="attempt seconds per real second for the attacks' attempts (default: the time limit in about a minute)",
    )
    a.set_defaults(func=cmd_audit)
    c = sub.add_parser(
        "calibrate", help="gate 3: the four benchmark agents as real attempts, bands, spread, order, flakiness"
    )
    c.add_argument("dir", metavar="DIR", help="the challenge package directory")
    c.add_argument("--json", action="store_true", help="one JSON document on stdout")
    c.add_argument(
        "--time-scale",
        type=float,
        default=None,
        metavar="X",
        help="attempt seconds per real second (default: the time limit in about a minute)",
    )
    c.add_argument(
        "--sandbox", choices=("docker", "local"), default=None, help="sandbox backend (default: docker if it answers)"
    )
    c.add_argument(
        "--store",
        metavar="DB",
        default=None,
        help="keep the calibration attempts in this store (default: a throw-away one)",
    )
    c.add_argument("--quick", action="store_true", help="one run per agent: skip the flakiness repeats")
    c.set_defaults(func=cmd_calibrate)
    from gauntlet_tui.cli.publish_cmd import register_publish  # noqa: PLC0415

    register_publish(sub)
    from gauntlet_tui.cli.import_cmd import register_import  # noqa: PLC0415

    register_import(sub)
    from gauntlet_tui.cli.generate_cmd import register_generate  # noqa: PLC0415

    register_generate(sub)
    from gauntlet_tui.cli.list_cmd import register_list  # noqa: PLC0415

    register_list(sub)
    p.set_defaults(func=_usage)


def _usage(args: argparse.Namespace) -> int:
    from arena.errors import UsageError  # noqa: PLC0415

    raise UsageError("challenge: expected a verb: validate, calibrate, audit, publish, published, list")


def cmd_validate(args: argparse.Namespace) -> int:
    from arena.pipeline.package import examine  # noqa: PLC0415

    challenge, findings = examine(package(args.dir))
    name = challenge.manifest.id if challenge is not None else str(args.dir)
    if (
        args.run
        and challenge is not None
        and not any(f.severity == "error" and f.check in LOAD_CHECKS for f in findings)
    ):
        from arena.pipeline.package_runs import run_checks  # noqa: PLC0415

        if args.time_scale is not None and not (0 < args.time_scale < float("inf")):
            from arena.errors import UsageError  # noqa: PLC0415

            raise UsageError(f"--time-scale: expected a positive number, got {args.time_scale}")
        findings = findings + run_checks(challenge, args.sandbox, time_scale=args.time_scale)[0]
    return report(args, name, findings)


# Findings that make a package unloadable (load_challenge raises on them).
LOAD_CHECKS = ("unreadable", "manifest", "format_rules", "structure", "paths", "agents")


def cmd_audit(args: argparse.Namespace) -> int:
    from arena.challenge import ChallengeError, load_challenge  # noqa: PLC0415
    from arena.pipeline.integrity import static_audit, verdict  # noqa: PLC0415

    try:
        challenge = load_challenge(package(args.dir))
    except ChallengeError as exc:
        return report(args, str(args.dir), exc.findings, {"verdict": "reject"})
    findings = static_audit(challenge)
    extra: dict = {}
    if not args.static:
        from arena.pipeline.package_runs import run_checks  # noqa: PLC0415

        # The starter judged as is: the shortcut check, and any failure to run at all.
        findings += [f for f in run_checks(challenge, args.sandbox, solution=False)[0] if f.severity == "error"]
        if not any(f.check == "sandbox" for f in findings):
            import asyncio  # noqa: PLC0415

            from arena.errors import UsageError  # noqa: PLC0415
            from arena.pipeline.calibration import run_attacks  # noqa: PLC0415
            from arena.sandbox import SandboxError, get_backend  # noqa: PLC0415

            if args.time_scale is not None and not (0 < args.time_scale < float("inf")):
                raise UsageError(f"--time-scale: expected a positive number, got {args.time_scale}")
            try:
                backend = get_backend(args.sandbox)
            except SandboxError as exc:
                raise UsageError(f"--sandbox {args.sandbox or '(auto)'}: {exc}") from None
            found, objectives, _ = asyncio.run(run_attacks(challenge, backend=backend, time_scale=args.time_scale))
            findings += found
            extra["attacks"] = objectives
    extra["verdict"] = verdict(findings)
    return report(args, challenge.id, findings, extra)


def cmd_calibrate(args: argparse.Namespace) -> int:
    import asyncio  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from arena.challenge import ChallengeError, load_challenge  # noqa: PLC0415
    from arena.pipeline.calibration import calibrate  # noqa: PLC0415
    from arena.pipeline.integrity import verdict  # noqa: PLC0415
    from arena.errors import UsageError  # noqa: PLC0415
    from arena.sandbox import SandboxError, get_backend  # noqa: PLC0415

    if args.time_scale is not None and not (0 < args.time_scale < float("inf")):
        raise UsageError(f"--time-scale: expected a positive number, got {args.time_scale}")
    try:
        challenge = load_challenge(package(args.dir))
    except ChallengeError as exc:
        return report(args, str(args.dir), exc.findings)
    from arena.pipeline.publish_records import package_hash  # noqa: PLC0415

    phash = package_hash(challenge.root)
    try:
        backend = get_backend(args.sandbox)
    except SandboxError as exc:
        raise UsageError(f"--sandbox {args.sandbox or '(auto)'}: {exc}") from None
    cal = asyncio.run(
        calibrate(
            challenge,
            backend=backend,
            time_scale=args.time_scale,
            store=Path(args.store) if args.store else None,
            flakiness=not args.quick,
        )
    )
    # package_hash (taken before the runs) lets `challenge publish --calibration` tell the report is of this package as it is.
    extra = {
        "scores": cal.scores,
        "runs": cal.runs,
        "spread": cal.spread,
        "package_hash": phash,
        "classification": cal.classification,
        "objectives": cal.objectives,
        "slipped": cal.slipped,
        "excluded": {a: [r["attempt"] for r in rows] for a, rows in cal.slipped.items()},  # never verified
        "seed_003": cal.seed_003,
        "verdict_gate_4": verdict([f for f in cal.findings if f.check == "trivial_shortcut"]),
    }
    if args.store:  # what `challenge publish --calibration` re-judges (pipeline/reproduce.py)
        extra["store"] = str(Path(args.store).resolve())
        extra["attempts"] = cal.attempts
    if not args.json:
        for agent, totals in cal.runs.items():
            ids = f"  ({', '.join(cal.attempts.get(agent, []))})" if args.store else ""
            objs = cal.objectives.get(agent, [])
            obj = f"  objective {', '.join(f'{o:g}' for o in objs)}" if objs else ""
            print(f"{agent:<14} {', '.join(f'{t:6.1f}' for t in totals)}{obj}{ids}")
        for agent, rows in cal.slipped.items():
            for r in rows:
                print(f"{agent:<14} slipped, excluded: {r['attempt']} ({r['total']:g}): {'; '.join(r['reasons'][:2])}")
    return report(args, challenge.id, cal.findings, extra)
