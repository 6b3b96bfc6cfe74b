"""Usage limits parsed from an agent file or plan, and the price table (built-in plus the
user's file; unknown models have no cost)."""

from __future__ import annotations

import pytest

from arena.errors import UsageError
from arena.gateway import PriceTable, Usage, UsageLimits


def test_limits_parse_good():
    lim = UsageLimits.parse({"tokens": 400000, "calls": 150, "cost_usd": 5}, "agent.yaml: limits")
    assert lim == UsageLimits(tokens=400000, calls=150, cost_usd=5.0)
    assert UsageLimits.parse(None, "x") == UsageLimits()
    assert lim.as_dict() == {"tokens": 400000, "calls": 150, "cost_usd": 5.0}


@pytest.mark.parametrize(
    "mapping, needle",
    [
        ({"tokenz": 5}, "unknown key 'tokenz'"),
        ({"tokens": -1}, "limits.tokens"),
        ({"tokens": "lots"}, "limits.tokens"),
        ({"calls": True}, "limits.calls"),
        ({"calls": 1.5}, "limits.calls"),
        ({"cost_usd": "5$"}, "limits.cost_usd"),
        ([1, 2], "expected a mapping"),
    ],
)
def test_limits_parse_bad_names_the_key(mapping, needle):
    with pytest.raises(UsageError) as err:
        UsageLimits.parse(mapping, "a.yaml: limits")
    assert needle in str(err.value) and "a.yaml" in str(err.value)


def test_usage_reached():
    u = Usage(input_tokens=60, output_tokens=40, calls=3)
    assert u.tokens == 100
    assert u.reached(UsageLimits(tokens=100, calls=4)) == [("tokens", 100, 100)]
    assert u.reached(UsageLimits(cost_usd=1.0)) == []  # no cost known: never reached
    assert u.as_dict()["tokens"] == 100


def test_builtin_prices_known_and_unknown(tmp_path):
    t = PriceTable.load({"HOME": str(tmp_path)})
    assert t.cost("openai/gpt-4.1-mini", 1_000_000, 1_000_000) == pytest.approx(0.40 + 1.60)
    assert t.cost("openai/no-such-model", 10, 10) is None
    assert t.cost("anthropic/claude-sonnet-4-20250514", 0, 1_000_000) == pytest.approx(15.0)


def test_user_file_extends_and_overrides(tmp_path):
    f = tmp_path / "prices.yaml"
    f.write_text("openai/my-finetune: {input: 3.0, output: 12}\nopenai/gpt-4.1-mini: {input: 1, output: 2}\n")
    t = PriceTable.load({"GAUNTLET_PRICES": str(f)})
    assert t.cost("openai/my-finetune", 1_000_000, 0) == pytest.approx(3.0)
    assert t.cost("openai/gpt-4.1-mini", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert t.get("openai/gpt-4o") is not None  # the built-ins stay


def test_default_user_file_in_home_config(tmp_path):
    cfg = tmp_path / ".config/gauntlet"
    cfg.mkdir(parents=True)
    (cfg / "prices.yaml").write_text("anthropic/claude-x: {input: 1, output: 5}\n")
    assert PriceTable.load({"HOME": str(tmp_path)}).get("anthropic/claude-x") is not None


@pytest.mark.parametrize(
    "text, needle",
    [
        ("gpt-4: {input: 1, output: 2}\n", "provider/model"),
        ("openai/x: {input: 1}\n", "openai/x"),
        ("openai/x: {input: -1, output: 2}\n", "openai/x.input"),
        ("openai/x: {input: cheap, output: 2}\n", "openai/x.input"),
        ("- a\n- b\n", "expected a mapping"),
        ("openai/x: {input: [1, output: 2}\n", "not valid YAML"),
    ],
)
def test_bad_user_file_names_file_and_key(tmp_path, text, needle):
    f = tmp_path / "p.yaml"
    f.write_text(text)
    with pytest.raises(UsageError) as err:
        PriceTable.load({"GAUNTLET_PRICES": str(f)})
    assert needle in str(err.value) and str(f) in str(err.value)


def test_named_price_file_missing(tmp_path):
    with pytest.raises(UsageError, match="GAUNTLET_PRICES"):
        PriceTable.load({"GAUNTLET_PRICES": str(tmp_path / "nope.yaml")})
