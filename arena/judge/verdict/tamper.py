"""Tamper scan: what in a submission could be aimed at the judge.

Each hit is an integrity ``Finding``. Some of these are neutralised by the judge
run itself (a ``conftest.py``, ``pytest.ini`` or ``sitecustomize.py`` in the
submission is never loaded) and are recorded as warnings; others can only be
detected, not prevented (code running in the test process that touches the
runner's internals, ``atexit`` hooks, ``os._exit``) and are recorded as errors.
Files identical to the starter's file at the same path are not findings.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Literal

from arena.results import Finding
from arena.judge.verdict.snapshot import Snapshot

MAX_SCAN_BYTES = (
    5 * 1024 * 1024
)  # = the snapshot's per-file cap: every stored file is scanned (issue 11: a runner patch padded past 512 KiB went unscanned)

_RUNNER_MODULES = {"pytest", "_pytest", "pluggy", "iniconfig", "py", "coverage", "gauntlet_judge_plugin"}
_CONFIG_NAMES = {"pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}
_CONFIG_SECTION = {
    "tox.ini": re.compile(r"^\s*\[(pytest|tool:pytest)\]", re.M),
    "setup.cfg": re.compile(r"^\s*\[tool:pytest\]", re.M),
    "pyproject.toml": re.compile(r"^\s*\[tool\.pytest", re.M),
}

# (check, severity, pattern, what it means)
Severity = Literal["info", "warning", "error"]  # Finding.severity
# (check, severity, pattern, what it means)
_CODE_PATTERNS: list[tuple[str, Severity, re.Pattern[str], str]] = [
    ("runner_internals", "error", re.compile(r"\b_pytest\b"), "imports or names pytest's internals (_pytest)"),
    (
        "runner_internals",
        "error",
        re.compile(r"^\s*(async\s+)?def\s+pytest_\w+\s*\(", re.M),
        "defines a pytest hook (pytest_*)",
    ),
    ("runner_internals", "error", re.compile(r"junit", re.I), "refers to the JUnit report"),
    (
        "runner_internals",
        "error",
        re.compile(r"sys\.modules\s*\[\s*['\"]_?pytest"),
        "reaches into sys.modules['pytest']",
    ),
    (
        "runner_internals",
        "error",
        re.compile(
            r"pytest\s*\.\s*(main|hookimpl|hookspec|register)\b|"
            r"pluginmanager|\bconfig\.hook\b"
        ),
        "drives the test runner or its plugin manager",
    ),
    (
        "judge_paths",
        "error",
        re.compile(r"['\"]/judge\b|gauntlet_judge|(?i:gauntlet_verifier)"),
        "refers to the judge-side paths or the judge's plugin",
    ),
    (
        "exit_tricks",
        "warning",
        re.compile(r"\bos\s*\.\s*_exit\b|\bposix\s*\.\s*_exit\b"),
        "calls os._exit (ends the test process before the report)",
    ),
    ("exit_tricks", "warning", re.compile(r"\batexit\b"), "registers atexit hooks"),
    (
        "exit_tricks",
        "warning",
        re.compile(r"\bsys\s*\.\s*exitfunc\b|\bsignal\s*\.\s*signal\s*\("),
        "installs exit or signal handlers",
    ),
]


_IMPORT_PYTEST = re.compile(r"^\s*(import\s+pytest\b|from\s+pytest\b)", re.M)


def _text(snapshot: Snapshot, rel: str) -> str | None:
    e = snapshot.entries.get(rel)
    if e is None or e.kind != "file" or e.size > MAX_SCAN_BYTES:
        return None
    try:
        return (snapshot.path / rel).read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def _same_as_starter(snapshot: Snapshot, rel: str, starter: Path | None) -> bool:
    if starter is None:
        return False
    base = starter / rel
    try:
        if base.is_symlink() or not base.is_file():
            return False
        e = snapshot.entries[rel]
        if e.kind != "file":
            return False
        return base.read_bytes() == (snapshot.path / rel).read_bytes()
    except (OSError, KeyError):
        return False


def scan(snapshot: Snapshot, *, starter: Path | None = None, judge_test_names: set[str] | None = None) -> list[Finding]:
    """Integrity findings for a snapshot; ``judge_test_names`` are the judge-side file names."""
    findings: list[Finding] = []
    judge_names = judge_test_names or set()

    def add(severity: Severity, check: str, detail: str) -> None:
        findings.append(Finding(severity=severity, check=f"tamper.{check}", detail=detail))

    for rel in snapshot.files:
        e = snapshot.entries[rel]
        name = rel.rsplit("/", 1)[-1]
        if _same_as_starter(snapshot, rel, starter):
            continue
        if e.kind == "link":
            t = e.target or ""
            if t.startswith("/") or ".." in t.split("/"):
                add(
                    "warning",
                    "symlink",
                    f"{rel}: symlink to {t!r} points outside the submission "
                    "(stored as a link, never followed by the judge)",
                )
            if "judge" in t or any(t.endswith(n) for n in judge_names):
                add("error", "judge_paths", f"{rel}: symlink to {t!r} aims at judge-side paths")
            continue
        if name == "conftest.py":
            add("warning", "conftest", f"{rel}: conftest.py in the submission (never loaded by the judge)")
        if name in ("sitecustomize.py", "usercustomize.py"):
            add("warning", "site_hook", f"{rel}: {name} (never loaded: the judge runs python -I)")
        if name.endswith(".pth"):
            add("warning", "site_hook", f"{rel}: .pth file (never processed: not in a site directory)")
        if name in _CONFIG_NAMES:
            config = _text(snapshot, rel) or ""
            pat = _CONFIG_SECTION.get(name)
            if pat is None or pat.search(config):
                add(
                    "warning",
                    "runner_config",
                    f"{rel}: pytest configuration in the submission (ignored: the judge forces its own -c)",
                )
        stem = name[:-3] if name.endswith(".py") else name
        top = rel.split("/")[0]
        if (stem in _RUNNER_MODULES or top in _RUNNER_MODULES) and (
            rel.count("/") == 0 or top in _RUNNER_MODULES or rel.startswith("src/")
        ):
            add(
                "warning",
                "shadowing",
                f"{rel}: named like the test runner's own module {stem or top!r} "
                "(the judge imports the runner before the submission is on sys.path)",
            )
        if name in judge_names:
            add("error", "judge_paths", f"{rel}: has the name of a judge-side test file")
        parts = rel.split("/")
        if parts[0] in ("judge",) or (len(parts) > 2 and parts[0] == "tests" and parts[1] in ("hidden", "adversarial")):
            add("error", "judge_paths", f"{rel}: placed at a judge-side test path")
        if name.endswith((".py", ".pth")):
            text = _text(snapshot, rel)
            if text is None:
                continue
            seen = set()
            is_test = name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            m = _IMPORT_PYTEST.search(text)
            if m and not is_test:
                line = text.count("\n", 0, m.start()) + 1
                add("warning", "runner_internals", f"{rel}:{line}: imports pytest outside a test file")
            for check, severity, pat, what in _CODE_PATTERNS:
                m = pat.search(text)
                if m and (check, what) not in seen:
                    seen.add((check, what))
                    line = text.count("\n", 0, m.start()) + 1
                    add(severity, check, f"{rel}:{line}: {what}")
            if name.endswith(".py"):
                for line, what in hidden_exits(text):
                    add("error", "exit_tricks", f"{rel}:{line}: {what}")
    return findings


# -- os._exit spelled so that no pattern above sees it (issue 36) ------------------------
_EXIT_MODULES = {"os", "posix", "nt"}
_FOLD_DEPTH = 40


def _fold(node: ast.AST, depth: int = 0) -> str | None:
    """The string a constant expression evaluates to ('o' + 's', f'{"_"}exit',
    ''.join(['_', 'exit']), 'tixe_'[::-1], chr(95) + 'exit'), else None. Nothing that
    could build a big string from a small source (``*``, ``%`` widths) is evaluated."""
    if depth > _FOLD_DEPTH:
        return None
    d = depth + 1
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        if any(isinstance(v, ast.FormattedValue) and (v.format_spec or v.conversion != -1) for v in node.values):
            return None
        parts = [_fold(v.value if isinstance(v, ast.FormattedValue) else v, d) for v in node.values]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _fold(node.left, d), _fold(node.right, d)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        base = _fold(node.value, d)
        sl = node.slice
        bounds = [None if x is None else _int(x) for x in (sl.lower, sl.upper, sl.step)]
        if base is None or any(x is False for x in bounds):
            return None
        return base[slice(*bounds)]
    if isinstance(node, ast.Call) and not node.keywords:
        f = node.func
        if isinstance(f, ast.Name) and f.id == "chr" and len(node.args) == 1:
            n = _int(node.args[0])
            return chr(n) if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 0x110000 else None
        if isinstance(f, ast.Attribute) and f.attr == "join" and len(node.args) == 1:
            sep = _fold(f.value, d)
            seq = node.args[0]
            if sep is None or not isinstance(seq, (ast.List, ast.Tuple)):
                return None
            items = [_fold(x, d) for x in seq.elts]
            return None if any(i is None for i in items) else sep.join(i for i in items if i is not None)
        if isinstance(f, ast.Name) and f.id == "str" and len(node.args) == 1:
            return _fold(node.args[0], d)
    return None


def _int(node: ast.AST):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        return -v if isinstance(v, int) else False
    return False


def _names_exit_module(node: ast.AST) -> bool:
    """``__import__('os')``, ``importlib.import_module('o' + 's')``, ``sys.modules['os']``."""
    if isinstance(node, ast.Call) and node.args:
        f = node.func
        fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if fname in ("__import__", "import_module"):
            return _fold(node.args[0], 0) in _EXIT_MODULES
    if isinstance(node, ast.Subscript):
        return _fold(node.slice, 0) in _EXIT_MODULES
    return False


def hidden_exits(text: str) -> list[tuple[int, str]]:
    """(line, what) of every spelling of ``os._exit`` the plain pattern does not see:
    ``getattr(x, '_' + 'exit')``, ``__import__('o' + 's')._exit``, ``vars(os)['_exit']``,
    ``os.__dict__['_exit']``, ``from os import _exit``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[tuple[int, str]] = []
    seen: set[int] = set()

    def hit(node: ast.AST, what: str) -> None:
        line = getattr(node, "lineno", 0)
        if line not in seen:
            seen.add(line)
            out.append((line, what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if len(node.args) >= 2 and _fold(node.args[1], 0) == "_exit":
                hit(node, "reaches os._exit through getattr (ends the test process unreported)")
        elif isinstance(node, ast.Attribute) and node.attr == "_exit":
            plain = isinstance(node.value, ast.Name) and node.value.id in _EXIT_MODULES
            if not plain and _names_exit_module(node.value):
                hit(node, "calls os._exit of a module imported by a built name (ends the test process unreported)")
        elif isinstance(node, ast.Subscript) and _fold(node.slice, 0) == "_exit":
            hit(node, "reaches os._exit through a namespace lookup (ends the test process unreported)")
        elif isinstance(node, ast.ImportFrom) and (node.module or "") in _EXIT_MODULES:
            if any(a.name == "_exit" for a in node.names):
                hit(node, "imports os._exit under another name (ends the test process unreported)")
    return out
