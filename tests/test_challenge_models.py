"""The manifest models (CONTRACT §2): time syntax, weight classes, defaults, x- keys."""

import copy

import pytest
from pydantic import ValidationError

from arena.challenge import Manifest, parse_duration, parse_size_mb
from arena.challenge.errors import translate
from arena.challenge.units import format_duration

BASE = {
    "id": "tiny-add",
    "title": "The Tiny Adder",
    "category": "debug-gauntlet",
    "format": "sprint",
    "weight_class": "lightweight",
    "time_limit": "15m",
    "iterations": 2,
    "deliverables": [
        {"name": "fix", "kind": "tests", "weight": 0.8},
        {"name": "NOTES.md", "kind": "file", "weight": 0.2},
    ],
    "judge": {"command": "python -m pytest --junitxml={report} {tests}"},
}


def manifest(**changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return Manifest.model_validate(data)


def messages(**changes):
    with pytest.raises(ValidationError) as exc:
        manifest(**changes)
    return [f.detail for f in translate(exc.value, "challenge.yaml", Manifest)]


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("90s", 90),
        ("15m", 900),
        ("1h30m", 5400),
        ("1h", 3600),
        ("2m30s", 150),
        ("1h 30m", 5400),
        ("0.5m", 30),
        (45, 45),
        (12.5, 12.5),
        ("1H30M", 5400),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "15", "15 minutes", "m", "1d", "-5m", "0s", 0, -3, True, None, [1], "1m1h"])
def test_bad_durations_say_what_was_expected(bad):
    with pytest.raises(ValueError, match="expected a time like 90s, 15m or 1h30m"):
        parse_duration(bad)


def test_format_duration_round_trips():
    for s in ("90s", "15m", "1h30m", "2h", "1m30s"):
        assert parse_duration(format_duration(parse_duration(s))) == parse_duration(s)
    assert format_duration(5400) == "1h30m"


def test_sizes():
    assert parse_size_mb("512m") == 512 and parse_size_mb("2g") == 2048 and parse_size_mb("1024k") == 1
    assert parse_size_mb("512MB") == 512 and parse_size_mb(256) == 256
    with pytest.raises(ValueError, match="expected a size like 512m"):
        parse_size_mb("lots")


def test_parsed_conveniences_and_defaults():
    m = manifest()
    assert m.time_limit_s == 900.0 and m.hang_limit_s == 60.0
    assert m.schema == "gauntlet.challenge/v1"
    assert m.judge.timeout_s == 60.0 and m.judge.categories == {}
    sb = m.sandbox
    assert (sb.image, sb.cpus, sb.memory, sb.memory_mb, sb.pids, sb.network) == (
        "gauntlet-base",
        1.0,
        "512m",
        512.0,
        128,
        False,
    )
    assert m.phases == [] and m.dimensions is None
    assert manifest(hang_limit="2m", judge={"command": "x {report}", "timeout": "90s"}).hang_limit_s == 120
    assert manifest(judge={"command": "x {report}", "timeout": "90s"}).judge.timeout_s == 90


@pytest.mark.parametrize(
    "value, name",
    [
        (1, "lightweight"),
        (2, "middleweight"),
        (3, "contender"),
        (4, "heavyweight"),
        (5, "frontier"),
        ("3", "contender"),
        ("Heavyweight", "heavyweight"),
        ("frontier", "frontier"),
    ],
)
def test_weight_class_by_name_or_number_is_normalised(value, name):
    m = manifest(weight_class=value)
    assert (
        m.weight_class == name
        and m.weight_class_number
        == ["lightweight", "middleweight", "contender", "heavyweight", "frontier"].index(name) + 1
    )


def test_x_keys_are_free_at_every_level():
    m = manifest(**{"x-author": "me", "sandbox": {"x-note": 1, "cpus": 2}})
    assert m.extensions == {"x-author": "me"}
    assert m.sandbox.cpus == 2 and m.sandbox.extensions == {"x-note": 1}


def test_deliverable_weights_sum_within_tolerance():
    manifest(
        deliverables=[
            {"name": "a", "kind": "tests", "weight": 0.1},
            {"name": "b", "kind": "file", "weight": 0.9 - 1e-7},
        ]
    )
    assert messages(
        deliverables=[{"name": "a", "kind": "tests", "weight": 0.5}, {"name": "b", "kind": "file", "weight": 0.4}]
    ) == ["challenge.yaml: key 'deliverables': expected weights summing to 1.0, they sum to 0.9"]


@pytest.mark.parametrize(
    "changes, expected",
    [
        (
            {"iterations": "two"},
            "challenge.yaml: key 'iterations': expected a whole number of submissions (an integer >= 1), got 'two'",
        ),
        (
            {"iterations": 0},
            "challenge.yaml: key 'iterations': expected a whole number of submissions (an integer >= 1), got 0",
        ),
        (
            {"format": "relay"},
            "challenge.yaml: key 'format': expected one of sprint, standard or marathon, got 'relay'",
        ),
        (
            {"sandbox": {"memory": "lots"}},
            "challenge.yaml: key 'sandbox.memory': expected a size like 512m or 2g, got 'lots'",
        ),
        (
            {"sandbox": {"network": "maybe"}},
            "challenge.yaml: key 'sandbox.network': expected true or false, got 'maybe'",
        ),
        ({"sandbox": {"pids": 0}}, "challenge.yaml: key 'sandbox.pids': expected a number >= 1, got 0"),
        (
            {"sandbox": {"cpu": 2}},
            "challenge.yaml: key 'sandbox.cpu': unknown key (did you mean 'cpus'?); keys starting x- are free for authors",
        ),
        (
            {"deliverables": [{"name": "a", "kind": "essay", "weight": 1}]},
            "challenge.yaml: key 'deliverables[0].kind': expected one of tests or file, got 'essay'",
        ),
        (
            {"judge": {"command": "pytest"}},
            "challenge.yaml: key 'judge.command': expected a command containing {report} (the JUnit XML path the command must write), got 'pytest'",
        ),
        (
            {"judge": {"command": "x {report}", "timeout": "soon"}},
            "challenge.yaml: key 'judge.timeout': expected a time like 90s, 15m or 1h30m, got 'soon'",
        ),
        (
            {"phases": [{"id": "p", "reveal_at": 1.5}]},
            "challenge.yaml: key 'phases[0].reveal_at': expected a number in 0-1, got 1.5",
        ),
        (
            {"phases": [{"id": "p", "pivot": "huge"}]},
            "challenge.yaml: key 'phases[0].pivot': expected one of none, minor, moderate or major, got 'huge'",
        ),
        (
            {
                "dimensions": {
                    "complexity": 11,
                    "ambiguity": 0,
                    "deception": 0,
                    "time_pressure": 2,
                    "scope": 1,
                    "domain_depth": 2,
                    "recovery_demand": 1,
                    "adversarial": 0,
                }
            },
            "challenge.yaml: key 'dimensions.complexity': expected a number in 0-10, got 11",
        ),
        ({"variables": ["a"]}, "challenge.yaml: key 'variables': expected a mapping, got a list"),
        ({"title": ""}, "challenge.yaml: key 'title': expected a non-empty string, got ''"),
        (
            {"hang_limit": "forever"},
            "challenge.yaml: key 'hang_limit': expected a time like 90s, 15m or 1h30m, got 'forever'",
        ),
    ],
)
def test_one_clear_message_per_problem(changes, expected):
    assert messages(**changes) == [expected]


def test_missing_keys_are_named():
    data = copy.deepcopy(BASE)
    del data["title"], data["judge"]
    with pytest.raises(ValidationError) as exc:
        Manifest.model_validate(data)
    assert [f.detail for f in translate(exc.value, "challenge.yaml", Manifest)] == [
        "challenge.yaml: required keys 'title', 'judge' missing"
    ]
    got = messages(difficulty_profile={"code_navigation": 0.5})
    assert len(got) == 1 and got[0].startswith(
        "challenge.yaml: key 'difficulty_profile': required keys 'root_cause_analysis'"
    )


def test_every_message_names_the_file_and_a_key():
    for d in messages(id="Bad Id", category="x", weight_class=9, time_limit="x", iterations=None, extra=1):
        assert d.startswith("challenge.yaml: key '"), d
        assert "expected" in d or "unknown key" in d, d
