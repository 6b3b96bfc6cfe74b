"""pipeline/baseline_files.py: the baseline agents' files calibration writes for a
package, and the ones it does not (issue 20, item 6). The real package writer
(baselines.with_baselines) and the real package hashing (challenge/content.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from arena.challenge.content import package_facts
from arena.pipeline.attack_regex import variants
from arena.pipeline.baseline_files import REGEX_DIR, allowed_baseline_files, foreign_baseline_files
from arena.pipeline.baselines import with_baselines
from arena.pipeline.reproduce import _baseline_file

OFF_BY_ONE = Path(__file__).resolve().parents[1] / "arena" / "bundled" / "off-by-one"


def _recorded(pkg: Path) -> dict[str, str]:
    files = package_facts(pkg)["agent_files"]
    assert isinstance(files, dict)
    return files


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_files_calibration_writes_pass(tmp_path):
    allowed, overlay = allowed_baseline_files(OFF_BY_ONE)
    recorded = _recorded(with_baselines(OFF_BY_ONE, tmp_path))
    assert {"agents/null.yaml", "agents/attack-copy.yaml", "agents/attack-delete.yaml"} <= set(recorded)
    assert foreign_baseline_files(recorded, _baseline_file, allowed, overlay) == []


def test_an_edited_baseline_agent_is_named(tmp_path):
    allowed, overlay = allowed_baseline_files(OFF_BY_ONE)
    pkg = with_baselines(OFF_BY_ONE, tmp_path)
    (pkg / "agents" / "attack-delete.yaml").write_text(yaml.safe_dump({"steps": ["submit"]}))
    assert foreign_baseline_files(_recorded(pkg), _baseline_file, allowed, overlay) == ["agents/attack-delete.yaml"]


def test_a_regex_overlay_must_be_one_of_the_variants():
    allowed, overlay = allowed_baseline_files(OFF_BY_ONE)
    rel, _name, text = variants(OFF_BY_ONE)[0]
    shape = _sha(yaml.safe_dump({"steps": [{"overlay": REGEX_DIR.rstrip("/")}, "submit"]}))
    good = {"agents/attack-regex.yaml": shape, REGEX_DIR + rel: _sha(text)}
    assert foreign_baseline_files(good, _baseline_file, allowed, overlay) == []
    hand_made = {"agents/attack-regex.yaml": shape, REGEX_DIR + rel: _sha(text + "\n# mine\n")}
    assert foreign_baseline_files(hand_made, _baseline_file, allowed, overlay) == [REGEX_DIR + rel]
    two = {**good, REGEX_DIR + "other.py": _sha(text)}
    assert foreign_baseline_files(two, _baseline_file, allowed, overlay) == sorted(
        [REGEX_DIR + rel, REGEX_DIR + "other.py"]
    )


def test_the_packages_own_agent_files_are_not_judged_here(tmp_path):
    allowed, overlay = allowed_baseline_files(OFF_BY_ONE)
    recorded = {"agents/naive.yaml": "0" * 64}  # the author's own: reproduce compares those with the package
    assert foreign_baseline_files(recorded, _baseline_file, allowed, overlay) == []
