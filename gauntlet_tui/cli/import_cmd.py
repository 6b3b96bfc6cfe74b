"""``gauntlet challenge export harbor PKG DIR`` (arena/pipeline/task_export.py) and
``gauntlet challenge import DIR --out PKG [--format F] [--no-build] [--json]``: a Harbor or
Terminal-Bench task as a Gauntlet package (arena/pipeline/task_import.py), its image built
with the gauntlet layer (arena/pipeline/task_image.py). Exit 0 imported (also when a FROM image
is missing and no registry answers: the package is written, ``built: false``, a note names
``docker pull``/``docker load``), 1 imported with a task that cannot pass as is (its image does
not build), 2 not a task (nothing written)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys


def register_import(sub: argparse._SubParsersAction) -> None:
    i = sub.add_parser("import", help="a Harbor (task.toml) or Terminal-Bench (task.yaml) task as a package")
    i.add_argument("dir", metavar="DIR", help="the task directory")
    i.add_argument("--out", required=True, metavar="PKG", help="the package directory to write (new or empty)")
    i.add_argument(
        "--format",
        choices=("sprint", "standard", "marathon"),
        default=None,
        help="default: from the task's agent timeout",
    )
    i.add_argument("--no-build", action="store_true", help="do not build the task image now")
    i.add_argument("--json", action="store_true", help="one JSON document on stdout")
    i.set_defaults(func=cmd_import)
    e = sub.add_parser("export", help="a package written as a task of another harness (harbor)")
    e.add_argument("to", choices=("harbor",), metavar="harbor", help="the task format (harbor)")
    e.add_argument("pkg", metavar="PKG", help="the challenge package directory")
    e.add_argument("dir", metavar="DIR", help="the task directory to write (new or empty)")
    e.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from arena.challenge import ChallengeError  # noqa: PLC0415
    from arena.pipeline.task_export import export_harbor  # noqa: PLC0415
    from arena.pipeline.task_import import ImportError_  # noqa: PLC0415

    try:
        s = export_harbor(args.pkg, args.dir)
    except ChallengeError as e:
        print(f"gauntlet: challenge export: {args.pkg}: {e}", file=sys.stderr)
        return 2
    except ImportError_ as e:
        print(f"gauntlet: challenge export: {e}", file=sys.stderr)
        return 2
    print(f"{s['id']} -> {s['task']} (Harbor task{'' if s['solution'] else ', no solution'})")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from pathlib import Path  # noqa: PLC0415

    from arena.pipeline.task_image import MissingBase, build, network_steps  # noqa: PLC0415
    from arena.pipeline.task_import import ImportError_, import_task  # noqa: PLC0415

    try:
        summary = import_task(args.dir, args.out, fmt=args.format)
        # the steps the build runs on the network (every other one has --network none): told to the operator
        summary["network_steps"] = network_steps(Path(args.out) / "environment" / "Dockerfile")
    except ImportError_ as e:
        print(f"gauntlet: challenge import: {e}", file=sys.stderr)
        return 2
    summary["notes"] = [*summary["notes"], *summary["network_steps"]]
    summary["built"] = False
    if not args.no_build and shutil.which("docker"):
        try:
            build(args.out)
            summary["built"] = True
        except MissingBase as e:  # the machine lacks an image, the task is fine: imported, not built
            summary["missing_images"] = e.images
            summary["notes"] = [*summary["notes"], str(e)]
        except ImportError_ as e:
            summary["build_error"] = str(e)
    elif not args.no_build:
        summary["notes"] = [*summary["notes"], "docker not found: the image is not built"]
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['task_format']} task -> {summary['package']} ({summary['format']}, "
            f"{summary['time_limit_s']:g}s, image {summary['image']}{'' if summary['built'] else ', not built'})"
        )
        for n in summary["notes"]:
            print(f"note: {n}")
        if "build_error" in summary:
            print(
                f"gauntlet: challenge import: imported, but the task cannot pass as is: {summary['build_error']}",
                file=sys.stderr,
            )
    return 1 if "build_error" in summary else 0  # imported, but its image does not build: cannot pass as is
