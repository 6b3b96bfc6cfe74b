"""A small built-in linter over a snapshot's Python files (``ast`` only, no deps).

Errors: syntax errors. Warnings: unused imports, bare ``except:``, ``import *``,
mutable default arguments. Runs on the host over the stored snapshot: it parses,
never imports, so submission code does not run here.
"""

from __future__ import annotations

import ast
import re

from arena.results import Lint
from arena.judge.verdict.snapshot import Snapshot

MAX_ISSUES = 50
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_LINT_BYTES = 512 * 1024


class _Visitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.imports: dict[str, int] = {}
        self.used: set[str] = set()
        self.issues: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.imports.setdefault(a.asname or a.name.split(".")[0], node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__":
            return
        for a in node.names:
            if a.name == "*":
                self.issues.append((node.lineno, f"wildcard import from {node.module}"))
            else:
                self.imports.setdefault(a.asname or a.name, node.lineno)

    def visit_Name(self, node: ast.Name) -> None:
        self.used.add(node.id)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            self.issues.append((node.lineno, "bare except"))
        self.generic_visit(node)

    def _defaults(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            if isinstance(d, (ast.List, ast.Dict, ast.Set)):
                self.issues.append((node.lineno, f"mutable default argument in {node.name}()"))
        self.generic_visit(node)

    visit_FunctionDef = _defaults
    visit_AsyncFunctionDef = _defaults

    def visit_Constant(self, node: ast.Constant) -> None:
        # names listed in __all__ or used in string annotations count as used
        if isinstance(node.value, str) and len(node.value) < 200:
            self.used.update(_IDENT.findall(node.value))


def lint_source(path: str, source: str) -> tuple[list[str], list[str]]:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        return [f"{path}:{e.lineno or 0}: syntax error: {e.msg}"], []
    except ValueError as e:
        return [f"{path}: unparsable: {e}"], []
    v = _Visitor()
    v.visit(tree)
    warnings = [f"{path}:{line}: {msg}" for line, msg in v.issues]
    if not path.endswith("__init__.py"):
        for name, line in sorted(v.imports.items(), key=lambda kv: kv[1]):
            if name not in v.used:
                warnings.append(f"{path}:{line}: unused import {name!r}")
    return [], warnings


def lint_snapshot(snapshot: Snapshot) -> Lint:
    errors: list[str] = []
    warnings: list[str] = []
    for rel in snapshot.files:
        e = snapshot.entries[rel]
        if e.kind != "file" or not rel.endswith(".py") or e.size > MAX_LINT_BYTES:
            continue
        try:
            src = (snapshot.path / rel).read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        errs, warns = lint_source(rel, src)
        errors += errs
        warnings += warns
    issues = (errors + warnings)[:MAX_ISSUES]
    return Lint(errors=len(errors), warnings=len(warnings), issues=issues)
