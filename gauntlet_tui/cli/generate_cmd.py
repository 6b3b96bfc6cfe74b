"""``gauntlet challenge generate``: seed 003 stages 1-5 as one job (arena/pipeline/generate/job.py).

Exit 0 when the package passed every gate asked for (``--until``), 1 when the job ended
otherwise (escalated to human review, or a stage timed out; report.json says why), 2 for
bad arguments."""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path


def register_generate(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("generate", help="stages 1-5: a package generated from the template library, then gates 1-5")
    g.add_argument("--category", required=True, help="a challenge category (e.g. debug-gauntlet, or debugging)")
    g.add_argument("--weight-class", required=True, metavar="N", help="1-5 or a name (lightweight ... frontier)")
    g.add_argument(
        "--format", default=None, choices=("sprint", "standard", "marathon"), help="default: the template's first"
    )
    g.add_argument(
        "--discriminators", default="", metavar="A,B", help="difficulty traits to emphasise (e.g. root-cause-analysis)"
    )
    g.add_argument(
        "--seed", type=int, default=None, help="reproduces the spec byte for byte (default: a random one, recorded)"
    )
    g.add_argument("--out", required=True, metavar="DIR", help="writes spec.yaml, package/ and report.json here")
    g.add_argument(
        "--until",
        choices=("spec", "package", "calibrate", "audit", "publish"),
        default=None,
        help="stop after this gate (default: audit, or publish with --publish)",
    )
    g.add_argument("--publish", action="store_true", help="gate 5 too: publish to --store")
    g.add_argument(
        "--store",
        metavar="DB",
        default=None,
        help="store whose publications give the fingerprint windows (30 days: gate 1, 60: a novel concept's "
        "patterns to avoid, 90: audit check 4.7) and that --publish writes to",
    )
    g.add_argument(
        "--sandbox", choices=("docker", "local"), default=None, help="sandbox backend (default: docker if it answers)"
    )
    g.add_argument(
        "--time-scale", type=float, default=None, metavar="X", help="attempt seconds per real second for calibration"
    )
    g.add_argument("--quick", action="store_true", help="calibrate with one run per agent (no flakiness repeats)")
    g.add_argument(
        "--builder",
        default=None,
        metavar="AGENT",
        help="stage 2 by a coding agent: a built-in adapter or an agent file",
    )
    g.add_argument("--model", default=None, metavar="M", help="the --builder adapter's model, e.g. openai/gpt-4.1-mini")
    g.set_defaults(func=cmd_generate)


def _weight_class(text: str) -> int:
    from arena.errors import UsageError  # noqa: PLC0415
    from arena.formats import WEIGHT_CLASSES  # noqa: PLC0415

    s = text.strip().lower()
    if s.isdigit() and 1 <= int(s) <= len(WEIGHT_CLASSES):
        return int(s)
    if s in WEIGHT_CLASSES:
        return WEIGHT_CLASSES.index(s) + 1
    raise UsageError(f"--weight-class: expected 1-5 or one of {', '.join(WEIGHT_CLASSES)}, got {text!r}")


def _builder(agent: str | None, model: str | None) -> str | None:
    """``--builder AGENT [--model M]``: the agent spec of the model builder (as ``run --agent``)."""
    from arena.errors import UsageError  # noqa: PLC0415

    if agent is None:
        if model is not None:
            raise UsageError("--model: only with --builder AGENT (the offline builder needs no model)")
        return None
    from arena.agents.agent_file import adapter_names, from_spec  # noqa: PLC0415
    from gauntlet_tui.cli.run_cmd import agent_spec  # noqa: PLC0415

    spec = agent_spec(agent, model)
    if from_spec(spec) is None and not Path(agent).is_file():
        raise UsageError(
            f"--builder {agent}: expected a built-in adapter ({', '.join(adapter_names())}, with --model) "
            "or the path of an agent file"
        )
    return spec


def cmd_generate(args: argparse.Namespace) -> int:
    from arena.challenge.models import TRAITS  # noqa: PLC0415
    from arena.errors import UsageError  # noqa: PLC0415
    from arena.pipeline.generate.architect import ArchitectError, candidates, trait_name  # noqa: PLC0415
    from arena.pipeline.generate.job import Job, Request  # noqa: PLC0415
    from arena.pipeline.generate.templates import TemplateError, categories, library  # noqa: PLC0415

    builder = _builder(args.builder, args.model)
    if args.time_scale is not None and not (0 < args.time_scale < float("inf")):
        raise UsageError(f"--time-scale: expected a positive number, got {args.time_scale}")
    wc = _weight_class(args.weight_class)
    discs = [d for d in (x.strip() for x in args.discriminators.split(",")) if d]
    bad = [d for d in discs if trait_name(d) not in TRAITS]
    if bad:
        raise UsageError(
            f"--discriminators: {bad[0]!r} is not a trait: expected some of {', '.join(t.replace('_', '-') for t in TRAITS)}"
        )
    try:
        templates = library()
    except TemplateError as exc:
        raise UsageError(str(exc)) from None
    if not any(t.matches_category(args.category) for t in templates):
        raise UsageError(
            f"--category: no template for {args.category!r}: expected one of {', '.join(categories(templates))}"
        )
    if not candidates(templates, args.category, wc, args.format):
        raise UsageError(f"--weight-class {wc} --format {args.format or 'any'}: no {args.category} template serves it")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    until = args.until or ("publish" if args.publish else "audit")
    if until == "publish" and not args.publish:
        raise UsageError("--until publish: needs --publish")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    store = Path(args.store) if args.store else None
    if store is None:
        from arena.paths import store_path  # noqa: PLC0415

        store = store_path(None)
    req = Request(
        category=args.category,
        weight_class=wc,
        seed=seed,
        out=out,
        fmt=args.format,
        discriminators=discs,
        until=until,
        sandbox=args.sandbox,
        time_scale=args.time_scale,
        quick=args.quick,
        store=store,
        builder=builder,
    )
    job = Job(req)
    try:
        outcome = job.run()
    except ArchitectError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 — one line, the report is written
        print(
            f"gauntlet: challenge generate: stopped by {type(exc).__name__}: {exc} (see {out / 'report.json'})",
            file=sys.stderr,
        )
        return 1
    for a in job.attempts:
        for s in a["stages"]:
            errs = sum(f.severity == "error" for f in s.findings)
            print(
                f"attempt {a['attempt']} (seed {a['seed']}) {s.name:<11} {s.status:<9} {s.elapsed_s:7.1f}s  {errs} error(s)"
            )
            for f in s.findings:
                if f.severity == "error":
                    print(f"    error   {f.check:<18} {f.detail}")
        if "retry_stage" in a:
            print(f"attempt {a['attempt']}: {a['result']}: back to stage {a['retry_stage']}")
    print(f"generate: {outcome} — spec {out / 'spec.yaml'}, package {out / 'package'}, report {out / 'report.json'}")
    return 0 if outcome == "passed" else 1
