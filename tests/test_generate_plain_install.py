"""Issue 39 item 1: generation from the README's plain install. Gate 2's adversarial sampler
ran the template with a path relative to the caller's directory from a scratch directory
(a relative ``--out`` failed every template), and a sampler that died before printing was
reported as ``IndexError`` instead of its own error (a missing pytest in a plain install)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from arena.pipeline.generate.architect import architect
from arena.pipeline.generate.builder import build
from arena.pipeline.generate.package_gate import adversarial_sample
from arena.pipeline.generate.templates import library

ROOT = Path(__file__).resolve().parents[1]


def _package(out: Path) -> Path:
    doc = architect(library(), category="debug-gauntlet", weight_class=2, seed=1, fmt="sprint")
    template = next(t for t in library() if t.id == doc["challenge_spec"]["template_id"])
    return build(template, doc, out)


def test_gate_2_samples_a_package_given_by_a_relative_path(tmp_path, monkeypatch):
    _package(tmp_path / "gen" / "package")
    monkeypatch.chdir(tmp_path)
    assert adversarial_sample(Path("gen/package")) == []


def test_a_sampler_that_dies_says_why(tmp_path):
    pkg = _package(tmp_path / "package")
    adv = next((pkg / "tests" / "adversarial").glob("test_*.py"))
    adv.write_text("import no_such_module_here\n" + adv.read_text())
    (finding,) = adversarial_sample(pkg)
    assert "No module named 'no_such_module_here'" in finding.detail, finding.detail
    assert "IndexError" not in finding.detail


def test_pytest_is_a_runtime_dependency():
    """Generated adversarial templates import pytest and the local judge runs it: it comes
    with ``pip install gauntlet-arena``, not only with the test extra."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip() for d in deps}
    assert "pytest" in names, names
