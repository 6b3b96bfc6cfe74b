"""Seed 003's three repetition windows over the store's publications (issue 22): 30 days
at gate 1 (tests/test_challenge_generate.py), 60 days for a novel concept's patterns to
avoid (Step 1.1) and 90 days for the audit's Check 4.7; and the 70/30 rule's novel draw,
made only when a model builder writes the package."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

import yaml

from arena.pipeline.generate.architect import NOVEL_SHARE, architect
from arena.pipeline.generate.job import Job, Request, integrity_retry_stage
from arena.pipeline.generate.model_builder import builder_task
from arena.pipeline.generate.spec_gate import (
    AUDIT_WINDOW_DAYS,
    NOVEL_WINDOW_DAYS,
    audit_repetition,
    gate_1,
    recent_fingerprints,
)
from arena.pipeline.generate.templates import library
from tests.support.published import publish_record
from arena.pipeline.integrity import verdict

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def draws_novel(seed: int) -> bool:
    return random.Random(f"gauntlet-architect:{seed}").random() < NOVEL_SHARE


def spec(seed: int, **kw) -> dict:
    return architect(library(), category="debugging", weight_class=2, seed=seed, **kw)["challenge_spec"]


def test_the_novel_share_is_about_thirty_percent_of_seeds():
    share = sum(draws_novel(s) for s in range(2000)) / 2000
    assert 0.27 <= share <= 0.33, share


def test_a_novel_draw_is_a_novel_concept_only_with_a_model_builder():
    novel = next(s for s in range(50) if draws_novel(s))
    plain = next(s for s in range(50) if not draws_novel(s))
    offline = spec(novel)
    assert offline["concept_source"].startswith("template (novel concept drawn") and "novel_concept" not in offline
    made = spec(novel, model_builder=True, avoid=["debug:x:y:z:small:1rh", "debug:a:b:c:small:2rh"])
    assert made["concept_source"] == "novel"
    assert made["anti_repetition_fingerprint"] == "novel-" + offline["anti_repetition_fingerprint"]
    nc = made["novel_concept"]
    assert nc["scaffold_template"] == made["template_id"]
    assert nc["avoid_patterns"] == ["debug:a:b:c:small:2rh", "debug:x:y:z:small:1rh"]
    assert set(made["discriminator_traits"]) == set(nc["discriminators"]) and nc["brief"]
    assert gate_1({"challenge_spec": made}, []) == []
    # A template draw is the same spec whoever builds it.
    assert spec(plain, model_builder=True) == spec(plain)


def test_the_builder_briefing_carries_the_novel_concept(tmp_path):
    novel = next(s for s in range(50) if draws_novel(s))
    plain = next(s for s in range(50) if not draws_novel(s))
    doc = {"challenge_spec": spec(novel, model_builder=True, avoid=["debug:old:one:x:small:1rh"])}
    text = (builder_task(doc, tmp_path / "a") / "briefing.md").read_text()
    assert "## A novel concept" in text and "`debug:old:one:x:small:1rh`" in text
    text = (builder_task({"challenge_spec": spec(plain)}, tmp_path / "b") / "briefing.md").read_text()
    assert "novel concept" not in text


def test_the_job_gives_a_novel_concept_the_last_60_days_to_avoid(tmp_path):
    store = tmp_path / "g.db"
    publish_record(store, "d45", "recovery:a:b:c:small:1rh", NOW - timedelta(days=45))
    publish_record(store, "d70", "recovery:d:e:f:small:1rh", NOW - timedelta(days=70))
    assert [r[1] for r in recent_fingerprints(store, NOW, NOVEL_WINDOW_DAYS)] == ["d45"]
    assert [r[1] for r in recent_fingerprints(store, NOW)] == []  # gate 1's own window is 30 days
    novel = next(s for s in range(50) if draws_novel(s))
    req = Request(category="debugging", weight_class=2, seed=novel, out=tmp_path / "o", until="spec", store=store,
                  builder="mini-swe-agent")  # fmt: skip
    assert Job(req, now=lambda: NOW).run() == "passed"
    written = yaml.safe_load((tmp_path / "o" / "spec.yaml").read_text())["challenge_spec"]
    assert written["concept_source"] == "novel"
    assert written["novel_concept"]["avoid_patterns"] == ["recovery:a:b:c:small:1rh"]
    inputs = json.loads((tmp_path / "o" / "report.json").read_text())["attempts"][0]["stages"][0]["inputs"]
    assert inputs["recent_fingerprints"] == 0 and inputs["recent_fingerprints_60d"] == 1


def test_check_4_7_flags_one_match_within_90_days_and_rejects_two(tmp_path):
    store = tmp_path / "g.db"
    fp = spec(4)["anti_repetition_fingerprint"]
    f = fp.split(":")
    four = ":".join(f[:4] + ["other", "9rh"])  # 4 of 6 fields: 67%, above check 4.7's 60%, under gate 1's 70%
    three = ":".join(f[:3] + ["x", "other", "9rh"])  # 3 of 6: 50%, no finding
    publish_record(store, "d80", four, NOW - timedelta(days=80))
    publish_record(store, "d85", three, NOW - timedelta(days=85))
    publish_record(store, "d100", fp, NOW - timedelta(days=100))  # the same fingerprint, outside the window
    recent = recent_fingerprints(store, NOW, AUDIT_WINDOW_DAYS)
    assert sorted(r[1] for r in recent) == ["d80", "d85"]
    found = audit_repetition(fp, recent)
    assert [(x.check, x.severity) for x in found] == [("repetition", "warning")]
    assert "d80" in found[0].detail and "67%" in found[0].detail
    assert gate_1({"challenge_spec": spec(4)}, recent_fingerprints(store, NOW)) == []  # nothing within 30 days
    assert verdict(found) == "pass_with_flags"
    publish_record(store, "d20", four.replace("9rh", "8rh"), NOW - timedelta(days=20))
    twice = audit_repetition(fp, recent_fingerprints(store, NOW, AUDIT_WINDOW_DAYS))
    assert len(twice) == 2 and verdict(twice) == "reject"
    assert integrity_retry_stage(twice) == 1  # a repeated challenge is the spec's: back to stage 1
