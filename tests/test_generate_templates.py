"""Issue 22's template library: every shipped template loads, renders a package for its
seed and passes gates 1-2 (fast); each new template's package passes gates 3-4 (calibrate
exit 0 and audit) for that seed on the local backend (slow: a real calibration, ~2 min)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.formats import CATEGORIES, FORMATS, WEIGHT_CLASSES
from arena.pipeline.generate.architect import architect
from arena.pipeline.generate.builder import build
from arena.pipeline.generate.package_gate import gate_2
from arena.pipeline.generate.spec_gate import gate_1
from arena.pipeline.generate.templates import library

# template id -> (category asked for, weight class, format, the seed measured to calibrate)
MEASURED = {
    "boundary-batches": ("debug-gauntlet", 2, "sprint", 1),
    "ledger-cents": ("forensic-reasoning", 2, "standard", 1),
}


def _spec(tid: str) -> dict:
    category, wc, fmt, seed = MEASURED[tid]
    doc = architect(library(), category=category, weight_class=wc, seed=seed, fmt=fmt)
    assert doc["challenge_spec"]["template_id"] == tid
    return doc


def test_every_template_is_listed_with_a_known_category_and_format():
    templates = {t.id: t for t in library()}
    assert set(templates) == set(MEASURED)
    for t in templates.values():
        assert t.category in CATEGORIES, t.id
        assert set(t.data["formats"]) <= set(FORMATS), t.id
        assert set(t.data["weight_classes"]) <= set(WEIGHT_CLASSES), t.id


@pytest.mark.parametrize("tid", sorted(MEASURED))
def test_template_renders_and_passes_gates_1_and_2(tid, tmp_path):
    doc = _spec(tid)
    assert gate_1(doc, []) == []
    template = next(t for t in library() if t.id == tid)
    pkg = build(template, doc, tmp_path / "package")
    errors = [f for f in gate_2(pkg) if f.severity == "error"]
    assert errors == [], errors
    text = (pkg / "briefing.md").read_text()
    assert "${" not in text and doc["challenge_spec"]["variables"]["domain_vocabulary"]["module"] in text


def _gauntlet(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args], cwd=cwd, capture_output=True, text=True, timeout=900
    )


@pytest.mark.slow
@pytest.mark.parametrize("tid", sorted(set(MEASURED) - {"boundary-batches"}))
def test_template_package_passes_gates_3_and_4(tid, tmp_path):
    category, wc, fmt, seed = MEASURED[tid]
    out = tmp_path / "o"
    r = _gauntlet("challenge", "generate", "--category", category, "--weight-class", str(wc), "--format", fmt,
                  "--seed", str(seed), "--out", str(out), "--sandbox", "local", "--quick", cwd=tmp_path)  # fmt: skip
    rep = json.loads((out / "report.json").read_text())
    assert r.returncode == 0, r.stdout[-3000:]
    assert rep["outcome"] == "passed" and rep["retry_count"] == 0, rep["outcome"]
    last = rep["attempts"][-1]["stages"]
    assert [s["stage"] for s in last][-2:] == ["calibrator", "auditor"] or "auditor" in [s["stage"] for s in last]
    assert all(s["status"] == "ok" for s in last), [(s["stage"], s["status"]) for s in last]
