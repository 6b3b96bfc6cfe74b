"""Seed 003 gate 4.2's regex attack: "Can a simple regex replace fix the issue?"
(``try_regex_attacks(package, COMMON_FIX_PATTERNS)``, critical above 50).

The attacker reads nothing and reasons about nothing: it applies one of the common
mechanical fixes of ``COMMON_FIX_PATTERNS`` (flip a comparison's strictness, drop or add a
``- 1`` / ``+ 1``, swap ``and``/``or``) as a global ``re.sub`` over one source file the
reference solution changes (every non-test starter ``.py`` when it changes none). Each
variant is judged by the real judge (``package_runs.judge_tree``) and scored by the
Objective judge; the best variant is the attack's overlay, which the ``attack-regex``
agent lays over the starter and submits as a real attempt. Choosing by the judge's full
result is an upper bound on what a regex-fixing agent could reach (it sees only the
visible tests), as the copy attack's use of the disclosed static suite is.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from arena.challenge.loader import Challenge

# (name, pattern, replacement): each a global re.sub over one file.
COMMON_FIX_PATTERNS: list[tuple[str, str, str]] = [
    ("<= to <", r"<=", "<"),
    ("< to <=", r"(?<![<\-])<(?![<=])", "<="),
    (">= to >", r">=", ">"),
    ("> to >=", r"(?<![>\-])>(?![>=])", ">="),
    ("drop - 1", r"\s*-\s*1\b(?!\.)", ""),
    ("drop + 1", r"\s*\+\s*1\b(?!\.)", ""),
    ("add - 1 to len()", r"(len\([^()]*\))(?!\s*-)", r"\1 - 1"),
    ("and to or", r"\band\b", "or"),
    ("or to and", r"\bor\b", "and"),
]
MAX_VARIANTS = 12  # each variant is one judge run: calibrate and audit pay for every one


def _is_test(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def target_files(root: Path) -> list[str]:
    from arena.pipeline.baselines import changed_by_reference  # noqa: PLC0415

    changed = [r for r in changed_by_reference(root) if r.endswith(".py") and not _is_test(r)]
    if changed:
        return changed
    starter = root / "starter"
    return sorted(
        p.relative_to(starter).as_posix()
        for p in starter.rglob("*.py")
        if not _is_test(p.relative_to(starter).as_posix())
    )


def variants(root: Path) -> list[tuple[str, str, str]]:
    """(file, pattern name, new text) for every pattern that changes a target file."""
    out = []
    for rel in target_files(root):
        try:
            text = (root / "starter" / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for name, pattern, repl in COMMON_FIX_PATTERNS:
            new = re.sub(pattern, repl, text)
            if new != text:
                out.append((rel, name, new))
    return out[:MAX_VARIANTS]


async def best_variant(ch: Challenge, backend: str | None) -> tuple[str, str, str, float] | None:
    """The variant the judge scores highest (file, pattern, text, objective), or None."""
    from arena.pipeline.package_runs import judge_tree  # noqa: PLC0415
    from arena.scoring.objective import submission_score  # noqa: PLC0415

    root = Path(ch.root)
    best: tuple[str, str, str, float] | None = None
    with tempfile.TemporaryDirectory(prefix="gauntlet-regex-") as tmp:
        work = Path(tmp)
        for i, (rel, name, text) in enumerate(variants(root)):
            tree = work / f"v{i}"
            shutil.copytree(ch.starter_dir, tree, symlinks=True)
            (tree / rel).write_text(text, encoding="utf-8")
            res = await judge_tree(ch, tree, backend, work)
            shutil.rmtree(tree, ignore_errors=True)
            if res.infra_error:
                continue
            score = float(submission_score(res, ch.manifest.deliverables))
            if best is None or score > best[3]:
                best = (rel, name, text, score)
            if score >= 100.0:
                break  # nothing scores higher: the rest need not be judged
    return best


async def build_overlay(ch: Challenge, into: Path, backend: str | None) -> tuple[str, str, float] | None:
    """Write the best variant under ``into``; (file, pattern, judged objective) or None."""
    best = await best_variant(ch, backend)
    if best is None:
        return None
    rel, name, text, score = best
    dest = into / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return rel, name, score
