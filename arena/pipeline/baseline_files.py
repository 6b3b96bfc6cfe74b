"""What calibration's baseline agents may have been made of (issue 20, item 6).

Publish checks that each re-judged calibration attempt ran on the package the report
names (pipeline/reproduce.py). The files calibration adds under ``agents/`` (the null
agent and the three attacks, pipeline/baselines.py) are not the author's, so they are not
in the package; without a check of their own, an author could run ``scripted:attack-copy``
from a hand-edited ``attack-copy.yaml`` that submits the starter and publish a package
whose tests a copy attack beats. So every baseline file an attempt recorded must be one
that calibration writes for this package:

- ``null``, ``attack-delete`` and ``attack-copy`` are functions of the package: their
  files must hash as ``baselines.with_baselines`` writes them now;
- ``attack-regex.yaml`` has one of its two shapes (submit the starter, or lay
  ``agents/attack-regex/1`` over it and submit) and that overlay holds exactly one file,
  equal to one of ``attack_regex.variants`` for that file.

Limit (stated): which regex variant calibration judged best is not re-derived here (that
costs one judge run per variant); a report could name an attempt made with a weaker
variant than the best.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import yaml

REGEX_DIR = "agents/attack-regex/1/"
REGEX_YAML = "agents/attack-regex.yaml"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def allowed_baseline_files(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(path -> allowed sha256 for the baseline files outside the regex overlay,
    overlay file path -> allowed sha256) for the package at ``root``."""
    from arena.challenge.content import package_facts  # noqa: PLC0415
    from arena.pipeline.attack_regex import variants  # noqa: PLC0415
    from arena.pipeline.baselines import with_baselines  # noqa: PLC0415

    own = package_facts(root)["agent_files"]
    assert isinstance(own, dict)
    with tempfile.TemporaryDirectory(prefix="gauntlet-baselines-") as tmp:
        copy = with_baselines(root, Path(tmp))
        written = package_facts(copy)["agent_files"]
    assert isinstance(written, dict)
    allowed: dict[str, set[str]] = {r: {h} for r, h in written.items() if r not in own}
    overlay_yaml = yaml.safe_dump({"steps": [{"overlay": REGEX_DIR.rstrip("/")}, "submit"]}).encode()
    allowed.setdefault(REGEX_YAML, set()).add(_sha(overlay_yaml))
    overlay: dict[str, set[str]] = {}
    for rel, _name, text in variants(root):
        overlay.setdefault(REGEX_DIR + rel, set()).add(_sha(text.encode("utf-8")))
    return allowed, overlay


def foreign_baseline_files(
    recorded: dict[str, str], is_baseline, allowed: dict[str, set[str]], overlay: dict[str, set[str]]
) -> list[str]:
    """The baseline files of ``recorded`` (an attempt's ``agent_files``) that calibration
    does not write for this package (``is_baseline(path)`` tells a baseline file)."""
    bad = []
    in_overlay = [r for r in recorded if r.startswith(REGEX_DIR)]
    if len(in_overlay) > 1:
        bad += sorted(in_overlay)
    for rel, digest in sorted(recorded.items()):
        if not is_baseline(rel) or rel in bad:
            continue
        ok = overlay.get(rel, set()) if rel.startswith(REGEX_DIR) else allowed.get(rel, set())
        if digest not in ok:
            bad.append(rel)
    return bad
