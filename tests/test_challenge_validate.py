"""Loading a valid package, its API, and the gate 1/2 checks of `challenge validate`."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from arena.challenge import ChallengeError, bundled_challenges, load_challenge, resolve_challenge
from arena.challenge import loader
from arena.pipeline import spec
from arena.pipeline.package import examine, validate
from gauntlet_tui.cli import main

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"


@pytest.fixture
def pkg(tmp_path):
    """A writable copy of the valid minimal package."""
    dst = tmp_path / "pkg"
    shutil.copytree(MINIMAL, dst, symlinks=True)
    return dst


def edit_manifest(pkg: Path, **changes):
    data = yaml.safe_load((pkg / "challenge.yaml").read_text())
    for k, v in changes.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = v
    (pkg / "challenge.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def counted(findings):
    return [f for f in findings if f.severity in ("error", "warning")]


def details(findings, severity=None):
    return [f.detail for f in findings if severity is None or f.severity == severity]


# -- the valid package --------------------------------------------------------------
def test_minimal_package_is_clean(capsys):
    assert counted(validate(MINIMAL)) == []
    assert main(["challenge", "validate", str(MINIMAL)]) == 0
    assert capsys.readouterr().out.strip().endswith("tiny-add: ok")
    assert main(["challenge", "validate", "--json", str(MINIMAL)]) == 0
    assert json.loads(capsys.readouterr().out) == {"challenge": "tiny-add", "findings": [], "ok": True}


def test_loaded_challenge_api():
    ch = load_challenge(MINIMAL)
    assert ch.root == MINIMAL.resolve() and ch.id == "tiny-add"
    assert ch.manifest.time_limit_s == 900 and ch.rules.name == "sprint"
    assert "calc.add" in ch.briefing and ch.phase_briefing(1) == ch.briefing and ch.phase_briefing(2) is None
    assert ch.starter_dir == ch.root / "starter" and ch.solution_dir == ch.root / "solution"
    assert ch.test_dirs(1) == {"static": [ch.root / "tests/static"], "hidden": [ch.root / "tests/hidden"]}
    assert ch.phase_count == 1 and ch.reveal_at == []
    assert ch.agent_names == ["elite", "naive", "reference", "standard"]
    elite = ch.scripted_agent("elite")
    assert [s.kind for s in elite.steps] == ["read", "wait", "overlay", "delete", "run", "submit", "message"]
    assert elite.steps[1].seconds == 60 and elite.steps[2].source == ch.root / "agents/fix"
    assert elite.steps[3].paths == ("test_calc.py",) and elite.steps[6].text == "Fixed the operator in add()."
    with pytest.raises(
        ChallengeError,
        match=r"agents/ghost.yaml: no such scripted agent: expected one of elite, naive, reference, standard",
    ):
        ch.scripted_agent("ghost")


def test_marathon_package_with_phases(pkg):
    edit_manifest(
        pkg,
        format="marathon",
        time_limit="1h30m",
        iterations=6,
        phases=[
            {"id": "extension", "reveal_at": 0.35, "advance_threshold": 0.6, "hint": "think about edits"},
            {"id": "adaptation", "pivot": "moderate", "advance_threshold": 0.7},
            {"id": "integration", "reveal_at": 0.8},
        ],
    )
    for n in (2, 3, 4):
        (pkg / f"phases/{n}/tests/static").mkdir(parents=True)
        (pkg / f"phases/{n}/tests/static/test_phase{n}.py").write_text("def test_p():\n    assert True\n")
        (pkg / f"phases/{n}/briefing.md").write_text(f"Phase {n}: more work.\n")
    assert counted(validate(pkg)) == []
    ch = load_challenge(pkg)
    assert ch.phase_count == 4 and ch.reveal_at == [0.35, 0.65, 0.8]
    assert ch.advance_thresholds == [0.6, 0.7, 0.6]
    assert ch.test_dirs(3) == {"static": [pkg.resolve() / "phases/3/tests/static"]}
    assert ch.phase_briefing(3) == "Phase 3: more work.\n"
    assert ch.manifest.phases[1].pivot == "moderate" and ch.manifest.phases[0].hint == "think about edits"


# -- gate findings ------------------------------------------------------------------
def test_gate1_completeness_fields_are_errors(pkg):
    edit_manifest(pkg, hook=None, anti_repetition_fingerprint=None, expected_failure_modes=[])
    found = details(validate(pkg), "error")
    assert (
        "challenge.yaml: key 'hook': missing or empty: expected a one-line hook (gate 1: every field present)" in found
    )
    assert any(d.startswith("challenge.yaml: key 'anti_repetition_fingerprint': missing or empty") for d in found)
    assert any(d.startswith("challenge.yaml: key 'expected_failure_modes': missing or empty") for d in found)
    load_challenge(pkg)  # loadable: completeness is a publishing gate, not a loading error


def test_gate1_at_least_two_deliverables(pkg):
    edit_manifest(pkg, deliverables=[{"name": "fix", "kind": "tests", "weight": 1.0}])
    assert "challenge.yaml: key 'deliverables': expected at least 2 deliverables (gate 1), got 1" in details(
        validate(pkg), "error"
    )


def test_envelope_outliers(pkg):
    edit_manifest(
        pkg,
        dimensions={
            "complexity": 8,
            "ambiguity": 0,
            "deception": 4,
            "time_pressure": 2,
            "scope": 1,
            "domain_depth": 1,
            "recovery_demand": 1,
            "adversarial": 0,
        },
    )
    warned = details(validate(pkg), "warning")
    assert (
        "challenge.yaml: key 'dimensions.complexity': expected 1-3 for a lightweight (seed 002 envelope), got 8"
        in warned
    )
    assert (
        "challenge.yaml: key 'dimensions.deception': expected 0-0 for a lightweight (seed 002 envelope), got 4"
        in warned
    )
    edit_manifest(pkg, weight_class=4)  # a heavyweight: complexity fits, the rest is far too low
    assert any("for a heavyweight" in d for d in details(validate(pkg), "warning"))


def test_one_envelope_outlier_is_only_info(pkg):
    edit_manifest(
        pkg,
        dimensions={
            "complexity": 2,
            "ambiguity": 0,
            "deception": 3,
            "time_pressure": 2,
            "scope": 1,
            "domain_depth": 1,
            "recovery_demand": 1,
            "adversarial": 0,
        },
    )
    findings = validate(pkg)
    assert counted(findings) == []
    assert any("(one outlier dimension is tolerated)" in d for d in details(findings, "info"))


def test_fingerprint_repetition_against_known_packages(pkg, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(MINIMAL, other)
    edit_manifest(other, id="other-add", anti_repetition_fingerprint="debug:arithmetic:wrong-operator:python:tiny:1rh")
    ch = load_challenge(pkg)
    found = spec.repetition(ch, known=[other])
    assert [f.detail for f in found] == [
        "challenge.yaml: key 'anti_repetition_fingerprint': 83% like 'debug:arithmetic:wrong-operator:python:tiny:1rh' "
        "of other-add: expected at most 70% (gate 1)"
    ]
    edit_manifest(other, anti_repetition_fingerprint="debug:arithmetic:off-by-one:go:tiny:1rh")
    assert spec.repetition(ch, known=[other]) == []
    assert spec.fingerprint_similarity("a:b:c", "a:b:c") == 1.0


def test_short_briefing_is_a_warning_and_exits_1(pkg, capsys):
    (pkg / "briefing.md").write_text("Fix it.\n")
    assert details(validate(pkg), "warning") == [
        "briefing.md: only 2 words: expected a briefing that states the task and deliverables (at least 30 words)"
    ]
    assert main(["challenge", "validate", str(pkg)]) == 1
    assert "tiny-add: 0 error(s), 1 warning(s)" in capsys.readouterr().out


def test_binary_briefing(pkg):
    (pkg / "briefing.md").write_bytes(b"\x00\x01\x02")
    assert "briefing.md: binary content: expected the briefing as UTF-8 text" in details(validate(pkg), "error")


def test_empty_suites_and_test_syntax(pkg):
    (pkg / "tests/adversarial").mkdir()
    (pkg / "tests/adversarial/helpers.py").write_text("X = 1\n")
    (pkg / "tests/static/test_broken.py").write_text("def test_x(:\n    pass\n")
    found = validate(pkg)
    assert (
        "tests/adversarial/: no test files: expected files named test_*.py (or *_test.*) in the adversarial suite"
        in details(found, "warning")
    )
    assert any(d.startswith("tests/static/test_broken.py: line 1: syntax error") for d in details(found, "error"))
    for p in (pkg / "tests/static").iterdir():
        p.unlink()
    assert any(d.startswith("tests/static/: no test files") for d in details(validate(pkg), "error"))


def test_judge_config_warnings(pkg):
    edit_manifest(pkg, judge={"command": "pytest --junitxml={report}", "timeout": "30m"})
    warned = details(validate(pkg), "warning")
    assert any(d.startswith("challenge.yaml: key 'judge.command': no {tests}") for d in warned)
    assert any(d.startswith("challenge.yaml: key 'judge.timeout': longer than the time limit") for d in warned)


def test_file_deliverable_must_be_delivered_and_stay_in_the_workspace(pkg):
    (pkg / "solution/NOTES.md").unlink()
    assert any("NOTES.md is in neither solution/ nor starter/" in d for d in details(validate(pkg), "warning"))
    edit_manifest(
        pkg,
        deliverables=[
            {"name": "fix", "kind": "tests", "weight": 0.5},
            {"name": "../NOTES.md", "kind": "file", "weight": 0.5},
        ],
    )
    assert (
        "challenge.yaml: key 'deliverables[1]': file deliverable '../NOTES.md': '..' may leave the workspace: expected a path inside it without '..'"
        in details(validate(pkg), "error")
    )
    with pytest.raises(ChallengeError):
        load_challenge(pkg)  # CONTRACT §1: a path escaping the package fails loading


def test_undeclared_phase_directory_and_marathon_without_phases(pkg):
    (pkg / "phases/2").mkdir(parents=True)
    assert "phases/2: no phases declared in challenge.yaml: expected no phases/ directory" in details(
        validate(pkg), "error"
    )
    shutil.rmtree(pkg / "phases")
    edit_manifest(pkg, format="marathon", time_limit="1h", iterations=5)
    assert any(
        d.startswith("challenge.yaml: key 'phases': a marathon without phases")
        for d in details(validate(pkg), "warning")
    )


def test_symlink_inside_the_package_is_fine_but_not_out_of_starter(pkg):
    (pkg / "starter/calc_link.py").symlink_to("calc.py")
    assert counted(validate(pkg)) == []
    (pkg / "starter/answer.py").symlink_to("../solution/calc.py")
    assert (
        "starter/answer.py: symlink escapes starter/ (points to ../solution/calc.py): expected a file or a link inside starter/"
        in details(validate(pkg), "error")
    )


def test_agent_file_errors_are_one_per_step(pkg):
    (pkg / "agents/naive.yaml").write_text(
        "steps:\n  - wait: 1m\n  - fly: home\n  - submit: now\n  - run: ''\nspeed: 3\n"
    )
    found = details(validate(pkg), "error")
    assert found == [
        "agents/naive.yaml: key 'speed': unknown key: expected steps, name, description; keys starting x- are free",
        "agents/naive.yaml: key 'steps[1]' (step 2): unknown step 'fly': expected one of wait, read, overlay, delete, run, submit, message",
        "agents/naive.yaml: key 'steps[2]' (step 3): submit: expected no value (write '- submit')",
        "agents/naive.yaml: key 'steps[3]' (step 4): run: expected a shell command as a non-empty string",
    ]
    (pkg / "agents/naive.yaml").write_text("- submit\n")
    assert details(validate(pkg), "error") == [
        "agents/naive.yaml: top level is a list: expected a mapping with a 'steps' list (CONTRACT §3)"
    ]


def test_manifest_that_is_a_directory_or_missing_dir(tmp_path, capsys):
    (tmp_path / "challenge.yaml").mkdir()
    assert main(["challenge", "validate", str(tmp_path)]) == 2
    assert "challenge.yaml: is a directory" in capsys.readouterr().err
    assert main(["challenge", "validate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gauntlet: ") and "nope: no such directory: expected a challenge package directory" in err
    assert main(["challenge", "validate", "--json", str(tmp_path / "nope")]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["findings"][0]["check"] == "unreadable"


def test_challenge_without_a_verb_is_a_usage_error(capsys):
    assert main(["challenge"]) == 2
    assert "expected a verb" in capsys.readouterr().err


def test_examine_returns_the_challenge_and_its_findings(pkg):
    ch, findings = examine(pkg)
    assert ch is not None and ch.id == "tiny-add" and counted(findings) == []
    ch, findings = examine(pkg / "missing")
    assert ch is None and findings[0].check == "unreadable"


# -- resolving ----------------------------------------------------------------------
def test_resolve_challenge_by_path_or_bundled_id(tmp_path, monkeypatch):
    bundled = tmp_path / "bundled"
    shutil.copytree(MINIMAL, bundled / "tiny-add")
    (bundled / "half-written").mkdir()  # no challenge.yaml yet: not listed
    monkeypatch.setattr(loader, "BUNDLED_ROOT", bundled)
    assert bundled_challenges() == [bundled / "tiny-add"]
    assert resolve_challenge("tiny-add") == bundled / "tiny-add"
    assert resolve_challenge(str(MINIMAL)) == MINIMAL.resolve()
    with pytest.raises(
        ChallengeError,
        match=r"nosuch: no such challenge: expected a package directory or a bundled challenge id \(tiny-add\)",
    ):
        resolve_challenge("nosuch")


def test_bundled_packages_load_and_pass_the_gates():
    """Whatever bundled packages are complete (have a manifest) must validate cleanly."""
    for path in bundled_challenges():
        problems = counted(validate(path))
        assert problems == [], f"{path.name}: {[f.detail for f in problems]}"


# -- unreadable manifests beyond the corpus -----------------------------------------
BIG = b"x-pad: '" + b"a" * (1024 * 1024) + b"'\n"
UNREADABLE = {
    "latin1": (
        b"id: caf\xe9\n",
        "challenge.yaml: not UTF-8 text (byte 7): expected a YAML mapping of the manifest keys",
    ),
    "int-key": (b"1: one\n", "challenge.yaml: key 1 is not a string: expected a YAML mapping"),
    "scalar": (b"just a sentence\n", "challenge.yaml: top level is a str ('just a sentence'): expected a YAML mapping"),
    "aliases": (
        b"a: &x [1, 2]\n" + b"".join(b"k%d: *x\n" % i for i in range(150)),
        "challenge.yaml: more than 100 YAML aliases: expected a YAML mapping",
    ),
    "huge": (
        BIG,
        f"challenge.yaml: {len(BIG)} bytes: expected a YAML mapping of the manifest keys (CONTRACT \u00a72) under 1024 KB",
    ),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_more_unreadable_manifests_exit_2(pkg, case, capsys):
    content, message = UNREADABLE[case]
    (pkg / "challenge.yaml").write_bytes(content)
    assert main(["challenge", "validate", str(pkg)]) == 2
    err = capsys.readouterr().err
    assert message in err, err[:300]
    assert "Traceback" not in err


def test_category_glob_that_matches_no_test_is_a_warning(pkg):
    edit_manifest(
        pkg,
        judge={
            "command": "pytest --junitxml={report} {tests}",
            "categories": {"test_edge_*": "edge_case", "test_egde_*": "typo"},
        },
    )
    assert details(validate(pkg), "warning") == [
        "challenge.yaml: key 'judge.categories': glob 'test_egde_*' matches no judge-side test: expected a pattern on test names like 'test_edge_*'"
    ]


def test_pivot_outside_the_seed_window_is_noted(pkg):
    edit_manifest(
        pkg,
        format="marathon",
        time_limit="1h30m",
        iterations=6,
        phases=[{"id": "extension"}, {"id": "adaptation", "pivot": "major", "reveal_at": 0.7}],
    )
    for n in (2, 3):
        (pkg / f"phases/{n}/tests/static").mkdir(parents=True)
        (pkg / f"phases/{n}/tests/static/test_p{n}.py").write_text("def test_p():\n    assert True\n")
        (pkg / f"phases/{n}/briefing.md").write_text("More.\n")
    found = validate(pkg)
    assert counted(found) == []
    assert (
        "challenge.yaml: key 'phases[1].reveal_at': a major pivot at 70% of the time: seed 000 targets 55%-65%"
        in details(found, "info")
    )
