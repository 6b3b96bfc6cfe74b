"""The engine never imports Textual (STYLE.md 1): arena/ and store/ run headless."""
import pkgutil
import subprocess
import sys
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
