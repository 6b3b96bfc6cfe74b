"""What a file deliverable's prose claims about the submission, checked against it (issue 38).

Offline (no judge model), a deliverable earns its share only for claims that match the work:
an identifier its original prose (substance.py) names is a **claim** when the starter or the
submission knows it, and the claim holds when

- a **function / method / class** it names (defined outside test files) was changed: its
  definition differs from the starter's, added or removed (compared as syntax trees, so a
  comment or a blank line is no change);
- a **file** it names (``sorter.py``, ``src/app.py``) was changed the same way (a cause named
  where the diff is);
- a **test** it names (in the judge's results or a test file) moved: its own definition was
  edited or removed, or the code outside the tests changed and the test does not fail in
  the judge's run (the judge does not see the starter's outcome of that test; a submission
  that changed no code moves no test).

A ``must_mention`` term that is none of these (a plain word) counts when said and the
submission changed some .py file; a deliverable without terms whose prose names no code
earns its share when it has original prose and the submission changed some .py file (the
design prose of a real change; whether it is right only the judge model can tell).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 500
MAX_FILE_BYTES = 256 * 1024
_CODE_SPAN = re.compile(r"`([^`]*)`")
_PLAIN = re.compile(r"^[A-Za-z][a-z]*$")  # a word of prose (substance.py), not an identifier
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\.py)?")
SKIP_DIRS = {"__pycache__", ".git", ".venv", "venv", "node_modules"}


def _is_test_file(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or "tests/" in f"/{rel}"


@dataclass
class CodeIndex:
    """Per .py file: its module's dump and ``{qualified name: dump}`` of every definition."""

    modules: dict[str, str] = field(default_factory=dict)
    defs: dict[str, dict[str, str]] = field(default_factory=dict)


def _defs(tree: ast.AST) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{prefix}{child.name}"
                out[q] = ast.dump(child)
                walk(child, q + ".")

    walk(tree, "")
    return out


def index_tree(files: Iterable[tuple[str, Path]]) -> CodeIndex:
    """Index (relative path, absolute path) pairs of .py files; unreadable or unparsable
    files are indexed by their bytes alone (a change is still a change)."""
    idx = CodeIndex()
    for n, (rel, path) in enumerate(sorted(files)):
        if n >= MAX_FILES:
            break
        try:
            data = path.read_bytes()[: MAX_FILE_BYTES + 1]
        except OSError:
            continue
        if len(data) > MAX_FILE_BYTES:
            idx.modules[rel] = "bytes:" + hashlib.sha256(data).hexdigest()
            continue
        try:
            tree = ast.parse(data.decode("utf-8", "replace"))
            idx.modules[rel] = ast.dump(tree)
            idx.defs[rel] = _defs(tree)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            idx.modules[rel] = "bytes:" + hashlib.sha256(data).hexdigest()
    return idx


def starter_files(root: Path) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.is_symlink() and not (set(rel.split("/")[:-1]) & SKIP_DIRS):
            out.append((rel, p))
    return out


@dataclass
class Work:
    """What the submission changed against the starter, and the tests the judge ran."""

    changed_defs: set[str]  # short and qualified names of changed definitions (outside tests)
    known_defs: set[str]
    changed_files: set[str]  # relative paths and base names
    known_files: set[str]
    code_changed: bool  # some non-test .py file changed
    edited_tests: set[str]  # test functions whose definition changed (or that were removed)
    known_tests: set[str]  # test functions in the starter's or the submission's test files
    test_outcomes: dict[str, bool]  # test name -> passed (any run of it passing)

    @classmethod
    def between(cls, starter: CodeIndex, submission: CodeIndex, tests: Iterable[tuple[str, bool]]) -> "Work":
        changed_defs: set[str] = set()
        known_defs: set[str] = set()
        edited_tests: set[str] = set()
        known_tests: set[str] = set()
        changed_files: set[str] = set()
        known_files: set[str] = set()
        code_changed = False
        for rel in set(starter.modules) | set(submission.modules):
            base = rel.rsplit("/", 1)[-1]
            known_files |= {rel, base}
            a, b = starter.modules.get(rel), submission.modules.get(rel)
            if a != b:
                changed_files |= {rel, base}
            da, db = starter.defs.get(rel, {}), submission.defs.get(rel, {})
            testing = _is_test_file(rel)
            if a != b and not testing:
                code_changed = True
            for q in set(da) | set(db):
                names = {q, q.rsplit(".", 1)[-1]}
                if testing:
                    known_tests |= names
                    if da.get(q) != db.get(q):
                        edited_tests |= names
                    continue
                known_defs |= names
                if da.get(q) != db.get(q):
                    changed_defs |= names
        outcomes: dict[str, bool] = {}
        for name, ok in tests:
            short = name.split("[", 1)[0]
            outcomes[short] = outcomes.get(short, False) or ok
        return cls(
            changed_defs, known_defs, changed_files, known_files, code_changed, edited_tests, known_tests, outcomes
        )

    @property
    def changed(self) -> bool:
        """Whether the submission changed any .py file (code or tests) against the starter."""
        return bool(self.changed_files)

    def claim(self, term: str) -> bool | None:
        """Whether the claim ``term`` holds; None when it names nothing code knows."""
        t = term.strip("`").removesuffix("()")
        if t in self.test_outcomes or t in self.known_tests:
            if t in self.edited_tests:
                return True
            return self.code_changed and self.test_outcomes.get(t, True)  # a visible test the judge does not run
        if t in self.known_defs or t in self.changed_defs:
            return t in self.changed_defs
        if t in self.known_files or t in self.changed_files:
            return t in self.changed_files
        return None

    def claims_in(self, prose: Iterable[str]) -> dict[str, bool]:
        """Every identifier the prose names that code knows, with whether it holds: words in
        code spans, and outside them words that are not plain words (``_find_runs``,
        ``TaskStore``, ``sorter.py``) or plain words naming what changed ("sub had the wrong
        sign"; an unchanged "list" in a sentence may be English, `list` is a claim)."""
        out: dict[str, bool] = {}
        for s in prose:
            spans = " ".join(_CODE_SPAN.findall(s))
            outside = _CODE_SPAN.sub(" ", s)
            words = [m.group(0) for m in _IDENT.finditer(spans.replace("()", ""))]
            for m in _IDENT.finditer(outside.replace("()", "")):
                w = m.group(0)
                if not _PLAIN.match(w) or self.claim(w):  # a plain word is a claim only when it holds
                    words.append(w)
            for w in words:
                held = self.claim(w)
                if held is not None:
                    out[w] = held
        return out


__all__ = ["SKIP_DIRS", "CodeIndex", "Work", "index_tree", "starter_files"]
