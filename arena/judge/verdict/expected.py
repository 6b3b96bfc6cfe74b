"""Which test ids a judge run must report, read from the judge-side test files.

Collection is done on the host with ``ast`` — never by importing anything — so a
submission cannot shrink the expected set: every expected test must report an
explicit pass, a missing one is a failure ("not reported"). Reported cases are
matched back to their expected function by phase, suite, file, classes and name
(parametrised cases ``name[...]`` belong to ``name``).

Ids are ``<suite>/<relpath>::<Class>::<name>`` for phase 1 and
``<suite>/phase<n>/<relpath>::...`` for Marathon phase n >= 2.
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass
from pathlib import Path

from arena.results import Outcome, Suite, TestResult

SUITES: tuple[Suite, ...] = ("static", "hidden", "adversarial")
_SUITE_BY_NAME: dict[str, Suite] = {s: s for s in SUITES}


def as_suite(name: str) -> Suite:
    """``name`` as a judge suite; a ValueError names it when it is none of ``SUITES``."""
    try:
        return _SUITE_BY_NAME[name]
    except KeyError:
        raise ValueError(f"judge-side test suite {name!r}: not one of {', '.join(SUITES)}") from None


@dataclass(frozen=True)
class Expected:
    phase: int
    suite: Suite
    relpath: str  # file path inside the suite directory, "/"-separated
    classes: tuple[str, ...]
    func: str
    ids: tuple[str, ...] | None  # parametrised case ids ("" = not parametrised, "?" = unknown id)

    @property
    def count(self) -> int | None:
        return None if self.ids is None else len(self.ids)

    @property
    def base(self) -> str:
        return test_id(self.phase, self.suite, self.relpath, self.classes, self.func)


def test_id(phase: int, suite: str, relpath: str, classes: tuple[str, ...], name: str) -> str:
    prefix = f"{suite}/" + (f"phase{phase}/" if phase > 1 else "")
    return prefix + "::".join([relpath, *classes, name])


test_id.__test__ = False  # type: ignore[attr-defined]


def is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _param_count(decorators: list[ast.expr]) -> int | None:
    ids = _param_ids(decorators)
    return None if ids is None else len(ids)


def _idval(v, argname: str, idx: int) -> str:
    if isinstance(v, str):
        return v.encode("unicode_escape").decode("ascii")
    if isinstance(v, bytes):
        return v.decode("ascii", "backslashreplace")
    if v is None or isinstance(v, (int, float, bool, complex)):
        return str(v)
    return f"{argname}{idx}"


class _Unknown(Exception):
    pass


def _argvalues(d: ast.Call) -> ast.expr | None:
    """The ``argvalues`` of a ``parametrize`` call, positional or by keyword."""
    return d.args[1] if len(d.args) > 1 else next((k.value for k in d.keywords if k.arg == "argvalues"), None)


def _one_decorator_ids(d: ast.Call) -> list[str] | None:
    """pytest's ids for one literal ``parametrize``; None when not statically known."""
    names = d.args[0] if d.args else next((k.value for k in d.keywords if k.arg == "argnames"), None)
    values = _argvalues(d)
    ids_kw = next((k.value for k in d.keywords if k.arg == "ids"), None)
    if not isinstance(values, (ast.List, ast.Tuple)):
        raise _Unknown
    if names is None:  # literal_eval(None) would raise ValueError too: ids not known
        return None
    try:
        argnames = ast.literal_eval(names)
    except (ValueError, SyntaxError, TypeError):
        return None
    if isinstance(argnames, str):
        argnames = [a.strip() for a in argnames.split(",") if a.strip()]
    if ids_kw is not None:
        try:
            explicit = ast.literal_eval(ids_kw)
        except (ValueError, SyntaxError):
            return None
        if (
            isinstance(explicit, (list, tuple))
            and len(explicit) == len(values.elts)
            and all(isinstance(x, str) for x in explicit)
        ):
            return list(explicit)
        return None
    out = []
    for idx, el in enumerate(values.elts):
        if isinstance(el, ast.Call) and getattr(el.func, "attr", "") == "param":
            pid = next((k.value for k in el.keywords if k.arg == "id"), None)
            if isinstance(pid, ast.Constant) and isinstance(pid.value, str):
                out.append(pid.value)
                continue
            if len(argnames) == 1 and len(el.args) == 1:
                el = el.args[0]
            else:
                el = ast.Tuple(elts=list(el.args), ctx=ast.Load())
        try:
            val = ast.literal_eval(el)
        except (ValueError, SyntaxError, TypeError):
            return None
        vals = [val] if len(argnames) == 1 else val
        if len(argnames) != 1 and (not isinstance(vals, (tuple, list)) or len(vals) != len(argnames)):
            return None
        out.append("-".join(_idval(v, n, idx) for v, n in zip(vals, argnames)))
    return out


def _param_ids(decorators: list[ast.expr]) -> list[str] | None:
    """Ids of every parametrised case (stacked decorators combined), [""] when none."""
    ids = [""]
    count_only = False
    for d in reversed(decorators):  # the decorator nearest the function comes first in the id
        if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "parametrize"):
            continue
        try:
            new = _one_decorator_ids(d)
        except _Unknown:
            return None
        if new is None:
            count_only = True
            values = _argvalues(d)  # a literal list or tuple, else _Unknown was raised
            n = len(values.elts) if isinstance(values, (ast.List, ast.Tuple)) else 0
            new = [f"?{i}" for i in range(n)]
        ids = [f"{a}-{b}" if a else b for b in new for a in ids]
    if count_only or len(set(ids)) != len(ids):
        return ["?"] * len(ids) if ids != [""] else ids
    return ids


def _is_testcase_class(node: ast.ClassDef) -> bool:
    for b in node.bases:
        name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def _combine(ids: list[str] | None, outer: list[str] | None) -> list[str] | None:
    """Function-level ids combined with class-level ids (the function's come first)."""
    if ids is None or outer is None:
        return None
    return [f"{a}-{b}" if a and b else (a or b) for b in outer for a in ids]


def _collect_class(node: ast.ClassDef, outer: tuple[str, ...], outer_count: list[str] | None, out: list):
    unittest_style = _is_testcase_class(node)
    if not unittest_style:
        if not node.name.startswith("Test"):
            return
        if any(isinstance(b, ast.FunctionDef) and b.name == "__init__" for b in node.body):
            return
    classes = outer + (node.name,)
    cls_ids = _param_ids(node.decorator_list)
    mult = None if cls_ids is None or outer_count is None else _combine(cls_ids, outer_count)
    for b in node.body:
        if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name.startswith("test"):
            ids = [""] if unittest_style else _param_ids(b.decorator_list)
            out.append((classes, b.name, _combine(ids, mult)))
        elif isinstance(b, ast.ClassDef):
            _collect_class(b, classes, mult, out)


def functions_in(source: str) -> list[tuple[tuple[str, ...], str, list[str] | None]]:
    tree = ast.parse(source)
    out: list = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            out.append(((), node.name, _param_ids(node.decorator_list)))
        elif isinstance(node, ast.ClassDef):
            _collect_class(node, (), [""], out)
    return out


def collect_expected(layout: dict[int, dict[str, list[Path]]]) -> tuple[list[Expected], list[str]]:
    """Expected tests of every phase and suite; errors name unreadable judge-side files."""
    expected: list[Expected] = []
    errors: list[str] = []
    for phase, suites in sorted(layout.items()):
        for suite, roots in suites.items():
            for root in roots:
                files = [root] if root.is_file() else sorted(p for p in root.rglob("*.py") if is_test_file(p.name))
                for f in files:
                    rel = f.name if root.is_file() else f.relative_to(root).as_posix()
                    try:
                        funcs = functions_in(f.read_text(encoding="utf-8"))
                    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
                        errors.append(f"judge-side test {f}: unreadable ({e})")
                        continue
                    for classes, func, ids in funcs:
                        expected.append(
                            Expected(phase, as_suite(suite), rel, classes, func, None if ids is None else tuple(ids))
                        )
    return expected, errors


def category_for(name: str, categories: dict[str, str] | None) -> str | None:
    base = name.split("[", 1)[0]
    for pattern, cat in (categories or {}).items():
        if fnmatch.fnmatchcase(base, pattern) or fnmatch.fnmatchcase(name, pattern):
            return cat
    return None


class Matcher:
    """Maps reported cases (JUnit classname+name, or pytest node ids) to expected tests."""

    def __init__(self, expected: list[Expected], tests_root: str = "/judge/tests"):
        self.expected = expected
        self.tests_root = tests_root.rstrip("/")
        self._by_dotted: dict[str, list[Expected]] = {}
        self._by_node: dict[tuple, Expected] = {}
        for e in expected:
            mod = f"{e.phase}/{e.suite}/{e.relpath}"
            self._by_dotted.setdefault(mod[:-3].replace("/", "."), []).append(e)
            self._by_node[(mod, e.classes, e.func)] = e

    def from_nodeid(self, nodeid: str) -> tuple[Expected, str] | None:
        """``1/static/test_x.py::TestC::test_a[p]`` (relative to the tests root)."""
        if nodeid.startswith(self.tests_root + "/"):
            nodeid = nodeid[len(self.tests_root) + 1 :]
        parts = nodeid.split("::")
        if len(parts) < 2:
            return None
        name = parts[-1]
        e = self._by_node.get((parts[0], tuple(parts[1:-1]), name.split("[", 1)[0]))
        return (e, name) if e else None

    def from_junit(self, classname: str, name: str, file: str | None = None) -> tuple[Expected, str] | None:
        base = name.split("[", 1)[0]
        # classname is "<dotted module path>[.<Class>...]" relative to the rootdir.
        parts = classname.split(".")
        for cut in range(len(parts), 0, -1):
            cands = self._by_dotted.get(".".join(parts[:cut]))
            if not cands:
                continue
            classes = tuple(parts[cut:])
            for e in cands:
                if e.classes == classes and e.func == base:
                    return e, name
        return None


def to_result(e: Expected, name: str, outcome: Outcome, message: str, categories: dict[str, str] | None) -> TestResult:
    return TestResult(
        id=test_id(e.phase, e.suite, e.relpath, e.classes, name),
        name=name,
        suite=e.suite,
        phase=e.phase,
        outcome=outcome,
        message=message if outcome != "passed" else "",
        category=category_for(name, categories),
    )
