"""A real agent's model usage on the screens' reducer (arena.view) and the dashboard cell."""

from arena import events as ev
from arena.view import AttemptView, usage_line
from gauntlet_tui.widgets.attempt_table import _usage_cell


def _e(kind, data, t=1.0, seq=1):
    return ev.Event(attempt="a-1", t=t, kind=kind, data=data, seq=seq)


def test_model_calls_add_up_live_against_the_limits():
    v = AttemptView()
    v.apply(
        _e(
            ev.ATTEMPT_STARTED,
            {
                "challenge": "c",
                "agent": "aider@openai/m",
                "format": "sprint",
                "model": "openai/m",
                "limits": {"tokens": 5000, "cost_usd": 1.0},
            },
            t=0,
        )
    )
    assert usage_line(v) == "0/5.0k tok · 0 calls · $0.00/$1.00"
    v.apply(
        _e(
            ev.MODEL_CALL,
            {
                "provider": "openai",
                "model": "m",
                "input_tokens": 1200,
                "output_tokens": 300,
                "latency_ms": 4.0,
                "status": 200,
                "cost_usd": 0.25,
            },
        )
    )
    v.apply(_e(ev.MODEL_TOOL_CALL, {"name": "bash"}))
    v.apply(
        _e(
            ev.MODEL_CALL,
            {
                "provider": "openai",
                "model": "m",
                "input_tokens": None,
                "output_tokens": None,
                "latency_ms": 1.0,
                "status": 429,
            },
        )
    )
    assert (v.tokens, v.calls, v.cost_usd) == (1500, 2, 0.25)  # a refused call counts (arena.usage)
    assert usage_line(v) == "1.5k/5.0k tok · 2 calls (1 refused) · $0.25/$1.00"
    assert _usage_cell(v) == "1.5k $0.25"
    texts = [a.text for a in v.activity]
    assert "tool call bash" in texts and any("HTTP 429" in t for t in texts)


def test_agents_without_a_model_show_no_usage():
    v = AttemptView()
    v.apply(_e(ev.ATTEMPT_STARTED, {"challenge": "c", "agent": "scripted:elite", "format": "sprint"}, t=0))
    assert usage_line(v) == "" and _usage_cell(v) == "—"
