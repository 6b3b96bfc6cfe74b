"""The engine never imports Textual (STYLE.md 1): arena/ and store/ run headless."""

import pkgutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _engine_modules() -> list[str]:
    mods = []
    for pkg in ("arena", "store"):
        mods.append(pkg)
        for info in pkgutil.walk_packages([str(ROOT / pkg)], prefix=f"{pkg}."):
            if ".bundled" in info.name or info.name.endswith("__main__"):
                continue
            mods.append(info.name)
    return mods


def test_engine_modules_do_not_import_textual():
    mods = _engine_modules()
    assert len(mods) > 5
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print('TEXTUAL' if bad else 'CLEAN', bad[:3])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("CLEAN"), out.stdout


def test_import_linter_contracts_hold():
    """The layers of pyproject.toml's [tool.importlinter]: the front end over the
    pipeline over the engine over the store, no package of the engine importing one above
    it, and no import circle between the engine's packages."""
    out = subprocess.run(["lint-imports", "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout, out.stdout


def test_no_textual_import_statement_in_engine_sources():
    offenders = []
    for pkg in ("arena", "store"):
        for path in (ROOT / pkg).rglob("*.py"):
            if "bundled" in path.parts:
                continue
            for line in path.read_text().splitlines():
                s = line.strip()
                if s.startswith(("import textual", "from textual")):
                    offenders.append(f"{path.relative_to(ROOT)}: {s}")
    assert offenders == []


def _package_circles() -> list[str]:
    """The circles of _circles in the code's own import graph (grimp's: every import counts,
    module level, inside functions and under TYPE_CHECKING)."""
    import grimp

    g = grimp.build_graph("arena", "store", "gauntlet_tui", include_external_packages=False, cache_dir=None)
    return _circles((m, d) for m in g.modules for d in g.find_modules_directly_imported_by(m))


def _circles(imports: Iterable[tuple[str, str]]) -> list[str]:
    """Import circles inside a package, as strongly connected components, each with the
    module imports that make it.

    A circle inside a package P (every package, the top-level ones included) is one among
    P's own parts: P's ``__init__`` (the node ``P``), each module directly in P's directory,
    and each direct sub-package of P taken as a whole (every module below it is that one
    node). A part imports another when any module in it imports any module in the other;
    importing ``P`` itself is importing P's ``__init__``. Imports to or from outside P's
    directory do not count for P (they are its parent's matter, and between the top-level
    packages import-linter's). So a module and its own package's ``__init__`` importing each
    other is a circle, and so are two sibling sub-packages importing each other through any
    of their modules."""
    edges: dict[str, dict[str, set[str]]] = {}  # P -> part -> parts it imports
    why: dict[tuple[str, str, str], list[str]] = {}  # (P, part, part) -> the module imports
    for m, d in imports:
        a, b = m.split("."), d.split(".")
        common = 0
        while common < min(len(a), len(b)) and a[common] == b[common]:
            common += 1
        for k in range(1, common + 1):  # every package holding both m and d
            pkg = ".".join(a[:k])
            pa = ".".join(a[: k + 1]) if len(a) > k else pkg
            pb = ".".join(b[: k + 1]) if len(b) > k else pkg
            if pa != pb:
                edges.setdefault(pkg, {}).setdefault(pa, set()).add(pb)
                why.setdefault((pkg, pa, pb), []).append(f"{m} -> {d}")
    out = []
    for pkg, adj in sorted(edges.items()):
        for comp in _strongly_connected(adj):
            inner = sorted(w for pa in comp for pb in comp for w in why.get((pkg, pa, pb), []))
            out.append(f"{pkg}: {' <-> '.join(comp)} ({'; '.join(inner)})")
    return out


def _strongly_connected(adj: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node, each sorted."""
    nodes = sorted(set(adj) | {w for ws in adj.values() for w in ws})
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(adj.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def test_what_counts_as_a_circle_inside_a_package():
    """The rule of _circles on made-up imports."""
    # two modules of one package
    assert _circles([("p.a", "p.b"), ("p.b", "p.a")]) == ["p: p.a <-> p.b (p.a -> p.b; p.b -> p.a)"]
    # a module and its package's __init__, also from deeper down (the sub-package as a whole)
    assert _circles([("p.a", "p"), ("p", "p.a")]) == ["p: p <-> p.a (p -> p.a; p.a -> p)"]
    assert _circles([("p.s.x", "p"), ("p", "p.s.y")]) == ["p: p <-> p.s (p -> p.s.y; p.s.x -> p)"]
    # sibling sub-packages, through different modules of each
    assert _circles([("p.s.x", "p.t.y"), ("p.t.z", "p.s.w")]) == ["p: p.s <-> p.t (p.s.x -> p.t.y; p.t.z -> p.s.w)"]
    # a circle deeper down is its own package's, not its parents'
    assert _circles([("p.s.x", "p.s.y"), ("p.s.y", "p.s.x")]) == [
        "p.s: p.s.x <-> p.s.y (p.s.x -> p.s.y; p.s.y -> p.s.x)"
    ]
    # one-way imports, and the top-level packages between them, are no circle here
    assert _circles([("p.a", "p.b"), ("p.s.x", "p.a"), ("p.a", "q.b"), ("q.c", "p.a")]) == []


def test_no_import_circle_inside_a_package():
    """Issue 24: no part of a package (its __init__, its modules, its sub-packages as
    wholes: _circles) imports another that imports it back, in any way. Where parts needed
    each other, what they share is a module below them (attempt/host.py, attempt/records.py,
    gateway/state.py, sandbox/owners.py, cli/findings_out.py, adapters/registry.py,
    cluster/grpcquiet.py, widgets/attempt_lines.py)."""
    assert _package_circles() == []
