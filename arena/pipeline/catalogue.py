"""The catalogue: every challenge this install and store know of (bundled packages,
generated ones, published ones), each with its category, format, weight class and
whether it is calibrated; and the summary seed 000 and seed 002 ask of a catalogue (the
20/65/15 Sprint/Standard/Marathon mix, each class's categories and pool size).

Where "calibrated" comes from, per source:

- bundled: ``arena/bundled/calibrations.json``, one record per id of a measured
  calibration (date, backends, exit codes) with the package hash it measured; a package
  that no longer hashes to it is *stale*, an id without a record is *not calibrated*.
- generated (``challenge generate --out DIR``; the TUI's under ``<store>.d/generated/``):
  ``DIR/report.json``, the calibrator stage (gate 3) of its last attempt.
- published: the publication's ``metadata.json`` (publish runs gate 3); a calibration
  published with ``--unverified-calibration`` is shown as such.

Reading only: nothing here writes or makes a directory."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable

from arena.formats import CATEGORIES, WEIGHT_CLASSES

FORMATS = ("sprint", "standard", "marathon")
# Seed 000 "Design Principles for Challenge Authors" 3: about 20% Sprint, 65% Standard, 15% Marathon.
FORMAT_MIX = {"sprint": 0.20, "standard": 0.65, "marathon": 0.15}
# Seed 002 "Weight Class Balance": target shares, minimum viable pool, category coverage.
CLASS_SHARE = {"lightweight": 0.15, "middleweight": 0.25, "contender": 0.30, "heavyweight": 0.20, "frontier": 0.10}
CLASS_MINIMUM = {"lightweight": 10, "middleweight": 15, "contender": 20, "heavyweight": 12, "frontier": 5}
CATEGORIES_PER_CLASS = 6
CATEGORIES_CONTENDER = len(CATEGORIES)
SOURCES = ("bundled", "generated", "published")
RECORDS = "calibrations.json"


@dataclass
class Entry:
    id: str
    source: str  # bundled | generated | published
    title: str | None
    category: str | None
    format: str | None
    weight_class: str | None
    calibrated: bool
    calibration: str  # how it is known, or why not, in a few words
    path: str
    state: str | None = None  # published: live, retired...; generated: the job's outcome
    problem: str | None = None  # a package that does not load: its first error

    def doc(self) -> dict[str, Any]:
        return asdict(self)


def _manifest(pkg: Path) -> tuple[dict[str, Any], str | None]:
    """The manifest's fields (normalised by the loader when it loads) and the first
    error when the package does not load."""
    from arena.challenge.loader import load_findings  # noqa: PLC0415

    challenge, findings = load_findings(pkg)
    errors = [f for f in findings if f.severity == "error"]
    if challenge is not None:
        m = challenge.manifest
        fields = {"id": m.id, "title": m.title, "category": m.category, "format": m.format,
                  "weight_class": m.weight_class}  # fmt: skip
        return fields, (errors[0].detail if errors else None)
    return {}, (errors[0].detail if errors else f"{pkg}: cannot be loaded")


def bundled_records(root: Path | None = None) -> dict[str, dict[str, Any]]:
    from arena.challenge.loader import BUNDLED_ROOT  # noqa: PLC0415

    path = (root or BUNDLED_ROOT) / RECORDS
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in doc.items() if isinstance(v, dict)} if isinstance(doc, dict) else {}


def bundled_calibration(pkg: Path, record: dict[str, Any] | None) -> tuple[bool, str]:
    from arena.challenge.content import package_hash  # noqa: PLC0415

    if not record:
        return False, "not calibrated (no record)"
    backends = record.get("backends") or {}
    at = record.get("measured_at", "?")
    if record.get("package_hash") != package_hash(pkg):
        return False, f"stale: changed since its calibration of {at}"
    failed = [b for b, code in backends.items() if code != 0]
    if failed or not backends:
        return False, f"calibration of {at} did not pass on {', '.join(failed) or 'any backend'}"
    return True, f"{' and '.join(sorted(backends))}, {at}"


def bundled(root: Path | None = None) -> list[Entry]:
    from arena.challenge.loader import BUNDLED_ROOT, MANIFEST  # noqa: PLC0415

    base = root or BUNDLED_ROOT
    records = bundled_records(base)
    out = []
    dirs = sorted(p for p in base.iterdir() if p.is_dir() and (p / MANIFEST).is_file()) if base.is_dir() else []
    for pkg in dirs:
        m, problem = _manifest(pkg)
        ok, how = bundled_calibration(pkg, records.get(str(m.get("id") or pkg.name)))
        out.append(_entry(m, pkg, "bundled", ok, how, problem=problem))
    return out


def _entry(
    m: dict[str, Any],
    pkg: Path,
    source: str,
    ok: bool,
    how: str,
    *,
    state: str | None = None,
    problem: str | None = None,
) -> Entry:
    return Entry(id=str(m.get("id") or pkg.name), source=source, title=m.get("title"), category=m.get("category"),
                 format=m.get("format"), weight_class=m.get("weight_class"), calibrated=ok, calibration=how,
                 path=str(pkg), state=state, problem=problem)  # fmt: skip


def generated_dirs(dirs: Iterable[Path]) -> list[Path]:
    """``challenge generate --out`` directories: each given one that holds ``package/``,
    and those one level under a given folder (``<store>.d/generated/``)."""
    out: list[Path] = []
    for d in dirs:
        if (d / "package").is_dir() or (d / "report.json").is_file():
            cands = [d]
        elif d.is_dir():
            cands = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
        else:
            cands = []
        out += [c for c in cands if (c / "package" / "challenge.yaml").is_file() and c not in out]
    return out


def generated_calibration(out: Path) -> tuple[bool, str, str | None]:
    """(calibrated, how, the job's outcome) from ``report.json``'s last attempt."""
    try:
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        attempts = report.get("attempts") or []
        stages = {s.get("stage"): s for s in (attempts[-1].get("stages") or [])} if attempts else {}
        outcome = report.get("outcome")
    except (OSError, ValueError, AttributeError, TypeError):
        return False, "not calibrated (no readable report.json)", None
    cal = stages.get("calibrator")
    if cal is None:
        return False, "not calibrated (stopped before gate 3)", outcome
    if cal.get("status") != "ok":
        return False, f"gate 3 {cal.get('status')}", outcome
    spread = (cal.get("outputs") or {}).get("spread")
    return True, "gate 3 passed" + (f", spread {spread:g}" if isinstance(spread, (int, float)) else ""), outcome


def generated(dirs: Iterable[Path]) -> list[Entry]:
    out = []
    for d in generated_dirs(dirs):
        m, problem = _manifest(d / "package")
        ok, how, outcome = generated_calibration(d)
        out.append(_entry(m, d / "package", "generated", ok, how, state=outcome, problem=problem))
    return out


def package_entry(pkg: Path, source: str) -> Entry:
    """Any package directory (the library's given ones), calibration unknown."""
    m, problem = _manifest(pkg)
    return _entry(m, pkg, source, False, "unknown", problem=problem)


def published(store: Path) -> list[Entry]:
    from arena.pipeline.published import list_published, read_record  # noqa: PLC0415
    from arena.pipeline.sealing import SealError  # noqa: PLC0415

    out = []
    for r in list_published(store):
        try:
            meta = read_record(Path(r["entry"]), "metadata")
        except SealError:
            meta = {}
        scores = meta.get("calibration_scores")
        verified = r.get("calibration_verified")
        ok = isinstance(scores, dict) and bool(scores)
        how = ("verified at publish" if verified else "unverified (--unverified-calibration)" if verified is False
               else "calibrated at publish") if ok else "no calibration in its metadata"  # fmt: skip
        m = {"id": r.get("id"), "title": meta.get("title"), "category": r.get("category"), "format": meta.get("format"),
             "weight_class": r.get("weight_class")}  # fmt: skip
        out.append(_entry(m, Path(r["entry"]), "published", ok, f"v{r['version']} {how}", state=r.get("state")))
    return out


def catalogue(
    store: Path | None, generated_in: Iterable[Path] = (), *, bundled_root: Path | None = None
) -> list[Entry]:
    """Every challenge known: bundled, generated (``generated_in`` and the store's
    ``generated/``), published (the store's). Sorted by category, then id."""
    gen = list(generated_in)
    if store is not None:
        gen.append(store.with_name(store.name + ".d") / "generated")
    rows = bundled(bundled_root) + generated(gen) + (published(store) if store is not None else [])
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(rows, key=lambda e: (order.get(e.category or "", len(order)), e.id, SOURCES.index(e.source)))


def distinct(rows: list[Entry]) -> list[Entry]:
    """One row per challenge id (a published bundled challenge is one challenge): the
    calibrated one first, else the first listed."""
    best: dict[str, Entry] = {}
    for e in rows:
        if e.id not in best or (e.calibrated and not best[e.id].calibrated):
            best[e.id] = e
    return list(best.values())


def summary(rows: list[Entry]) -> dict[str, Any]:
    """Seed 000's format mix and seed 002's class balance and category coverage of the
    distinct challenges (every one, and the calibrated ones)."""
    ones = distinct(rows)
    n = len(ones)
    mix = {}
    for f in FORMATS:
        count = sum(1 for e in ones if e.format == f)
        share = count / n if n else 0.0
        mix[f] = {"count": count, "share": round(share, 3), "target": FORMAT_MIX[f],
                  "off_by": round(share - FORMAT_MIX[f], 3)}  # fmt: skip
    classes = {}
    for wc in WEIGHT_CLASSES:
        mine = [e for e in ones if e.weight_class == wc]
        cats = {c: sum(1 for e in mine if e.category == c) for c in CATEGORIES}
        covered = [c for c in CATEGORIES if cats[c]]
        calibrated = [c for c in CATEGORIES if any(e.category == c and e.calibrated for e in mine)]
        need = CATEGORIES_CONTENDER if wc == "contender" else CATEGORIES_PER_CLASS
        classes[wc] = {
            "challenges": len(mine),
            "calibrated": sum(1 for e in mine if e.calibrated),
            "minimum_pool": CLASS_MINIMUM[wc],
            "share": round(len(mine) / n, 3) if n else 0.0,
            "target_share": CLASS_SHARE[wc],
            "categories": cats,
            "covered": len(covered),
            "covered_calibrated": len(calibrated),
            "categories_needed": need,
            "missing_categories": [c for c in CATEGORIES if not cats[c]],
        }
    return {
        "challenges": n,
        "rows": len(rows),
        "by_source": {s: sum(1 for e in rows if e.source == s) for s in SOURCES},
        "calibrated": sum(1 for e in ones if e.calibrated),
        "format_mix": mix,
        "unknown_format": sum(1 for e in ones if e.format not in FORMATS),
        "classes": classes,
        "categories_without_any": [c for c in CATEGORIES if not any(e.category == c for e in ones)],
    }


def by_category(rows: list[Entry]) -> list[tuple[str, list[Entry]]]:
    """Rows grouped by category in seed 000's order (every category, empty ones too;
    an unknown category last, under its own name)."""
    groups: dict[str, list[Entry]] = {c: [] for c in CATEGORIES}
    for e in rows:
        groups.setdefault(e.category or "(no category)", []).append(e)
    return list(groups.items())


__all__ = ["Entry", "by_category", "catalogue", "distinct", "summary", "FORMAT_MIX", "CLASS_MINIMUM", "package_entry"]
