"""Seed 003 Stage 2.5's static judges: code quality (ruff) and security (bandit, semgrep).

They run on the host over the stored snapshot, which they only parse: no submission code
is imported or executed. Whatever could steer an analyser from inside the snapshot is
switched off: ruff runs ``--isolated`` (no pyproject/ruff.toml of the agent's) with
``--ignore-noqa``; bandit gets the files as targets (so it finds no ``.bandit`` of the
agent's) with ``--ignore-nosec``; semgrep gets the judge's own rules file. A finding also
present in the starter (same tool, rule, file and line text) is the package's, not the
agent's: it is kept with ``new=False`` and only new findings are scored.

``quality_report(snapshot, starter, select, ignore)`` and
``security_report(snapshot, starter, semgrep=False, min_severity="medium")`` return a
``StaticReport``; a tool that cannot run gives ``error`` and no findings (never a score).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import sys
from pathlib import Path
from typing import Callable, Iterable, Literal

from arena.judge.static.bandit_server import BanditServer
from arena.results import StaticFinding, StaticReport

TOOL_TIMEOUT_S = 60.0
MAX_FILE_BYTES = 512 * 1024
MAX_FINDINGS = 200
SEMGREP_RULES = Path(__file__).with_name("semgrep_rules.yml")
Severity = Literal["low", "medium", "high"]  # StaticFinding.severity
SEVERITY_RANK: dict[str, int] = {"low": 0, "medium": 1, "high": 2}
_SEVERITY: dict[str, Severity] = {"low": "low", "medium": "medium", "high": "high"}
_BASELINES: dict[tuple, list[StaticFinding]] = {}


def python_files(root: Path, rels: Iterable[str] | None = None) -> list[str]:
    """Relative paths of the regular ``.py`` files under root (no links, none too big)."""
    out = []
    if rels is None:
        rels = [p.relative_to(root).as_posix() for p in root.rglob("*.py")]
    for rel in rels:
        p = root / rel
        if not rel.endswith(".py") or "__pycache__" in rel.split("/") or p.is_symlink():
            continue
        try:
            if p.is_file() and p.stat().st_size <= MAX_FILE_BYTES:
                out.append(rel)
        except OSError:
            continue
    return sorted(out)


def _env(home: str) -> dict[str, str]:
    # HOME and caches in a directory of their own: the analysed tree (a snapshot, or the
    # package's starter) must never receive a tool's cache or settings files.
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": home,
        "XDG_CACHE_HOME": home,
        # the arena's own import path, so bandit (and arena.judge.static.bandit_server) are found
        # wherever the arena was installed (a venv, --target tree of a cluster node)
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p)),
        "XDG_CONFIG_HOME": home,
        "RUFF_CACHE_DIR": home,
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "SEMGREP_SEND_METRICS": "off",
    }


def _run(argv: list[str], cwd: Path) -> tuple[str | None, str]:
    """(stdout, error) of one analyser run; stdout None when it failed to run."""
    with tempfile.TemporaryDirectory(prefix="gauntlet-static-") as home:
        env = _env(home)
        try:
            p = subprocess.run(
                argv, cwd=cwd, capture_output=True, timeout=TOOL_TIMEOUT_S, env=env, stdin=subprocess.DEVNULL
            )
        except FileNotFoundError:
            return None, f"{Path(argv[0]).name} is not installed"
        except subprocess.TimeoutExpired:
            return None, f"{Path(argv[0]).name} did not finish in {TOOL_TIMEOUT_S:g} s"
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")[-300:]


def _ruff_exe() -> str:
    """The arena's own ruff binary (found by the ruff package: venv, --target tree of a
    cluster node, user scheme), else whatever ``ruff`` is on PATH."""
    try:
        from ruff import find_ruff_bin  # noqa: PLC0415

        return find_ruff_bin()
    except Exception:  # noqa: BLE001 — not installed as a package, or no binary beside it
        return shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


def _line(root: Path, rel: str, n: int) -> str:
    try:
        lines = (root / rel).read_text("utf-8", "replace").splitlines()
        return lines[n - 1].strip() if 0 < n <= len(lines) else ""
    except OSError:
        return ""


def ruff_findings(
    root: Path, files: list[str], select: list[str], ignore: list[str]
) -> tuple[list[StaticFinding], str | None]:
    if not files:
        return [], None
    exe = _ruff_exe()
    argv = [
        exe,
        "check",
        "--isolated",
        "--ignore-noqa",
        "--no-cache",
        "--exit-zero",
        "--output-format",
        "json",
        "--select",
        ",".join(select),
    ]
    if ignore:
        argv += ["--ignore", ",".join(ignore)]
    out, err = _run(argv + ["--"] + [f"./{f}" for f in files], root)
    try:
        items = json.loads(out) if out is not None else None
    except ValueError:
        items = None
    if not isinstance(items, list):
        return [], f"ruff: {err or 'unreadable output'}".strip()
    found = []
    for it in items:
        rel = os.path.relpath(str(it.get("filename", "")), root).replace(os.sep, "/")
        code = str(it.get("code") or "syntax")
        sev: Severity = "medium" if code.startswith(("E9", "F8", "B")) or code == "syntax" else "low"
        found.append(
            StaticFinding(
                tool="ruff",
                rule=code,
                path=rel,
                line=int((it.get("location") or {}).get("row") or 0),
                severity=sev,
                message=str(it.get("message", ""))[:200],
            )
        )
    return found, None


_BANDIT = BanditServer(_env("/nonexistent"))  # bandit writes nothing: no home needed


def prestart() -> None:
    """Start the bandit process now (a judge warming up), not at the first submission."""
    _BANDIT.start()


def bandit_findings(root: Path, files: list[str]) -> tuple[list[StaticFinding], str | None]:
    """Bandit's findings, from the arena's long-lived bandit process (bandit_server.py:
    what ``bandit -f json -q --ignore-nosec -- ./f ...`` reports, without its start-up)."""
    if not files:
        return [], None
    results, err = _BANDIT.query(os.path.abspath(root), [f"./{f}" for f in files], TOOL_TIMEOUT_S)
    if results is None:
        return [], f"bandit: {err}".strip()
    found = []
    for it in results:
        rel = os.path.normpath(str(it.get("filename", ""))).replace(os.sep, "/")
        sev = _SEVERITY.get(str(it.get("issue_severity", "LOW")).lower(), "low")
        found.append(
            StaticFinding(
                tool="bandit",
                rule=str(it.get("test_id", "")),
                path=rel,
                line=int(it.get("line_number") or 0),
                severity=sev,
                message=str(it.get("issue_text", ""))[:200],
            )
        )
    return found, None


def semgrep_exe() -> str | None:
    """``GAUNTLET_SEMGREP``, else ``semgrep`` on PATH, else None (not installed)."""
    env = os.environ.get("GAUNTLET_SEMGREP")
    if env:
        return env if Path(env).exists() else None
    return shutil.which("semgrep")


def semgrep_findings(root: Path, files: list[str]) -> tuple[list[StaticFinding], str | None]:
    exe = semgrep_exe()
    if exe is None:
        return [], "semgrep: not installed (set GAUNTLET_SEMGREP to its path)"
    if not files:
        return [], None
    argv = [
        exe,
        "scan",
        "--config",
        str(SEMGREP_RULES),
        "--json",
        "--metrics=off",
        "--disable-version-check",
        "--disable-nosem",
        "--quiet",
        "--",
    ]
    out, err = _run(argv + [f"./{f}" for f in files], root)
    try:
        doc = json.loads(out) if out else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        return [], f"semgrep: {err or 'unreadable output'}".strip()
    sev_map: dict[str, Severity] = {"ERROR": "high", "WARNING": "medium", "INFO": "low"}
    found = []
    for it in doc.get("results", []):
        rel = os.path.normpath(str(it.get("path", ""))).replace(os.sep, "/")
        extra = it.get("extra") or {}
        found.append(
            StaticFinding(
                tool="semgrep",
                rule=str(it.get("check_id", "")).rsplit(".", 1)[-1],
                path=rel,
                line=int((it.get("start") or {}).get("line") or 0),
                severity=sev_map.get(str(extra.get("severity")), "low"),
                message=str(extra.get("message", ""))[:200],
            )
        )
    return found, None


Runner = Callable[[Path, list[str]], tuple[list[StaticFinding], str | None]]


def _report(
    snapshot,
    starter: Path | None,
    runners: list[tuple[str, Runner]],
    rules: list[str],
    keep: Callable[[StaticFinding], bool] = lambda f: True,
) -> StaticReport:
    root = Path(snapshot.path)
    files = python_files(root, [r for r in snapshot.files if snapshot.entries[r].kind == "file"])
    rep = StaticReport(tools=[n for n, _ in runners], rules=list(rules))
    base_keys: set[tuple] = set()
    errors = []
    for name, run in runners:
        found, err = run(root, files)
        if err:
            errors.append(err)
            continue
        if starter is not None and Path(starter).is_dir():
            key = (name, str(starter), tuple(rules))
            if key not in _BASELINES:
                sfiles = python_files(Path(starter))
                _BASELINES[key] = [
                    f.model_copy(update={"message": _line(Path(starter), f.path, f.line)})
                    for f in run(Path(starter), sfiles)[0]
                ]
            base = [f for f in _BASELINES[key] if keep(f)]
            rep.baseline += len(base)
            base_keys |= {(f.tool, f.rule, f.path, f.message) for f in base}
        for f in found:
            if keep(f):
                f.new = (f.tool, f.rule, f.path, _line(root, f.path, f.line)) not in base_keys
                rep.findings.append(f)
    rep.findings = sorted(rep.findings, key=lambda f: (not f.new, f.path, f.line, f.rule))[:MAX_FINDINGS]
    rep.error = "; ".join(errors) or None
    return rep


def quality_report(snapshot, starter: Path | None, select: list[str], ignore: list[str]) -> StaticReport:
    return _report(
        snapshot,
        starter,
        [("ruff", lambda r, f: ruff_findings(r, f, select, ignore))],
        list(select) + [f"-{c}" for c in ignore],
    )


def security_report(
    snapshot, starter: Path | None, *, semgrep: bool = False, min_severity: str = "medium"
) -> StaticReport:
    runners: list[tuple[str, Runner]] = [("bandit", bandit_findings)]
    if semgrep:
        runners.append(("semgrep", semgrep_findings))
    floor = SEVERITY_RANK.get(min_severity, 1)
    return _report(
        snapshot, starter, runners, [f"severity>={min_severity}"], keep=lambda f: SEVERITY_RANK[f.severity] >= floor
    )


def static_reports(spec, snapshot) -> tuple[StaticReport | None, StaticReport | None]:
    """Both static judges for a ``JudgeSpec`` (its ``quality``/``security`` manifest blocks;
    the defaults when the spec has none)."""
    from arena.challenge.models import Quality, Security  # noqa: PLC0415

    q = getattr(spec, "quality", None) or Quality()
    s = getattr(spec, "security", None) or Security()
    starter = getattr(spec, "starter", None)
    return (
        quality_report(snapshot, starter, list(q.select), list(q.ignore)),
        security_report(snapshot, starter, semgrep=bool(s.semgrep), min_severity=s.min_severity),
    )
