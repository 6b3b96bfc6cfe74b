"""The four forged green verdicts of issue 11, as hostile cases over the calc fixture.

Each submission's honest code earns everything but ``test_mul`` (its ``mul`` is wrong);
in-process, each got a full green verdict. Under process isolation (the default) each
must score exactly what the honest code earns.
"""

from __future__ import annotations

PATCH = """
import sys
import _pytest.reports as _r

_orig = _r.TestReport.from_item_and_call.__func__


def _forged(cls, item, call):
    rep = _orig(cls, item, call)
    rep.outcome = "passed"
    rep.longrepr = None
    return rep


_r.TestReport.from_item_and_call = classmethod(_forged)
_plugin = sys.modules.get("gauntlet_judge_plugin")
if _plugin is not None:
    _real_emit = _plugin._emit

    def _lying_emit(**kw):
        if kw.get("outcome") in ("failed", "error"):
            kw.update(outcome="passed", message="", forged=False)
        _real_emit(**kw)

    _plugin._emit = _lying_emit
"""

# The same patch, every name the scan looks for built from pieces at run time.
PIECES = """
import importlib, sys
_m = importlib.import_module("_py" + "test.rep" + "orts")
_T = getattr(_m, "Test" + "Report")
_name = "from_item" + "_and_call"
_orig = getattr(_T, _name).__func__


def _forged(cls, item, call):
    rep = _orig(cls, item, call)
    rep.outcome = "pass" + "ed"
    rep.longrepr = None
    return rep


setattr(_T, _name, classmethod(_forged))
_plugin = sys.modules.get("gauntlet" + "_judge" + "_plugin")
if _plugin is not None:
    _real = getattr(_plugin, "_em" + "it")

    def _lying(**kw):
        if kw.get("outcome") in ("failed", "error"):
            kw.update(outcome="pass" + "ed", message="", forged=False)
        _real(**kw)

    setattr(_plugin, "_em" + "it", _lying)
"""

# An import hook that loads the judge's test modules with every assert removed.
NO_ASSERTS = """
import ast, importlib.abc, importlib.util, sys


class _Strip(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if not name.split(".")[-1].startswith("test_"):
            return None
        for d in sys.path + [p for p in (path or [])]:
            pass
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not spec.origin:
            return None
        spec.loader = self
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(module.__spec__.origin) as f:
            tree = _Strip().visit(ast.parse(f.read()))
        exec(compile(ast.fix_missing_locations(tree), module.__spec__.origin, "exec"), module.__dict__)


sys.meta_path.insert(0, _Finder())
for _k in [k for k in sys.modules if k.split(".")[-1].startswith("test_")]:
    del sys.modules[_k]
"""

ALWAYS_EQUAL = """
class _Yes:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0
"""


def _cases():
    from hostile import ALL, MUL, Case, calc

    honest = dict(passed=ALL - {MUL}, failed={MUL})
    pad = "\n" + "# padding past the old 512 KiB scan limit\n" * 14000
    return [
        Case("forgery_runner_patch_padded", {"calc.py": calc("    return 0", prelude=PATCH + pad)}, **honest),
        Case("forgery_runner_patch_from_pieces", {"calc.py": calc("    return 0", prelude=PIECES)}, **honest),
        Case("forgery_tests_loaded_without_asserts", {"calc.py": calc("    return 0", prelude=NO_ASSERTS)}, **honest),
        Case("forgery_always_equal", {"calc.py": calc("    return _Yes()", prelude=ALWAYS_EQUAL)}, **honest),
    ]
