"""``gauntlet challenge publish DIR`` (seed 003 gate 5) and ``gauntlet challenge published``
(the published store's index). Registered under ``challenge`` by ``challenge_cmd``; shares ``findings_out`` with it.

publish exits 0 when the package was published, 1 when a gate failed (the error findings
say which; nothing is written), 2 for an unreadable package or bad input."""

from __future__ import annotations

import argparse
import json
import sys

from gauntlet_tui.cli.findings_out import package, render


def register_publish(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish",
        help="gate 5: gates 1-4 as preconditions, then an encrypted store entry with metadata, lifecycle, lineage, monitors",
    )
    p.add_argument("dir", metavar="DIR", help="the challenge package directory (or a bundled challenge id)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument(
        "--calibration",
        metavar="FILE",
        default=None,
        help="the report of `gauntlet challenge calibrate DIR --json` (default: calibrate here, --quick unless --flakiness)",
    )
    p.add_argument(
        "--unverified-calibration",
        action="store_true",
        help="publish on a --calibration report without re-judging its stored attempts "
        "(the report must carry its package_hash; recorded as calibration_verified: false "
        "in metadata and lineage, shown by `challenge published`)",
    )
    p.add_argument(
        "--flakiness", action="store_true", help="when calibrating here, run the flakiness repeats too (gate 3 item 7)"
    )
    p.add_argument(
        "--time-scale", type=float, default=None, metavar="X", help="time scale of the calibration attempts run here"
    )
    p.add_argument(
        "--sandbox",
        choices=("docker", "local"),
        default=None,
        help="sandbox for the gate runs (default: docker if it answers)",
    )
    p.add_argument(
        "--store",
        metavar="DB",
        default=None,
        help="the store whose data dir (<DB>.d/published/) receives the entry (default ./gauntlet.db or GAUNTLET_STORE)",
    )
    p.set_defaults(func=cmd_publish)
    ls = sub.add_parser("published", help="the published challenges (newest version of each)")
    ls.add_argument("--json", action="store_true", help="one JSON document on stdout")
    ls.add_argument("--store", metavar="DB", default=None, help="the store (default ./gauntlet.db or GAUNTLET_STORE)")
    ls.set_defaults(func=cmd_published)


def cmd_publish(args: argparse.Namespace) -> int:
    from arena.pipeline.publishing import PublishError, publish, read_calibration  # noqa: PLC0415
    from arena.pipeline.sealing import SealError, load_key  # noqa: PLC0415
    from arena.errors import UsageError  # noqa: PLC0415
    from arena.paths import data_dir, store_path  # noqa: PLC0415

    if args.time_scale is not None and not (0 < args.time_scale < float("inf")):
        raise UsageError(f"--time-scale: expected a positive number, got {args.time_scale}")
    try:
        report = read_calibration(args.calibration) if args.calibration else None
    except PublishError as exc:
        raise UsageError(f"--calibration {exc}") from None
    store = store_path(args.store)
    key_source: list[str] = []

    def key() -> bytes:
        k, where = load_key(data_dir(store))
        key_source.append(where)
        return k

    try:
        pub = publish(
            package(args.dir),
            store=store,
            key=key,
            calibration=report,
            sandbox=args.sandbox,
            flakiness=args.flakiness,
            time_scale=args.time_scale,
            verify_calibration=not args.unverified_calibration,
        )
    except SealError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(
            f"{exc.filename or store}: cannot write the published entry ({exc.strerror or exc}): expected a writable store directory"
        ) from None
    except Exception as exc:  # noqa: BLE001 — one line, never a traceback; nothing was published
        print(f"gauntlet: challenge publish {args.dir}: stopped by {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    code = pub.exit_code
    if args.json:
        doc = {
            "challenge": pub.challenge,
            "findings": [f.model_dump() for f in pub.findings],
            "ok": code == 0,
            "published": None
            if pub.entry is None
            else {
                "id": pub.challenge,
                "version": pub.version,
                "entry": str(pub.entry),
                "key_source": key_source[0] if key_source else None,
                "calibration_verified": pub.calibration_verified,
            },
        }
        print(json.dumps(doc, indent=2))
        return code
    if code == 2:
        for f in pub.findings:
            if f.check == "unreadable":
                print(f"gauntlet: {f.detail}", file=sys.stderr)
        return code
    lines = render(pub.challenge, pub.findings)
    lines[-1] = f"{pub.challenge}: " + (
        f"published version {pub.version} at {pub.entry}" if pub.entry else "not published"
    )
    print("\n".join(lines))
    return code


def cmd_published(args: argparse.Namespace) -> int:
    from arena.pipeline.published import list_published  # noqa: PLC0415
    from arena.paths import store_path  # noqa: PLC0415

    rows = list_published(store_path(args.store))
    if args.json:
        print(json.dumps({"published": rows}, indent=2))
        return 0
    if not rows:
        print("no published challenges")
    for r in rows:
        mark = {True: "verified", False: "UNVERIFIED", None: "unknown"}[r.get("calibration_verified")]
        print(
            f"{r['id']!s:<24} v{r['version']:<3} {r['state']!s:<11} {r['category']!s:<26} {r['weight_class']!s:<13} "
            f"calibration {mark:<10} expires {r['expires_at']}"
        )
        if r.get("state_reason"):
            print(f"    {r['state']}: {r['state_reason']}")
        for flag in r.get("review_flags") or []:
            print(f"    review: {flag}")
    return 0
