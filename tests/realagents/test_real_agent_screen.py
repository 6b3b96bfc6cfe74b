"""The attempt view of a real agent: its model, tokens and calls against the limits, live,
and the model calls, tool calls and observed commands in the activity stream (pilot; an SVG
screenshot is written for a look by eye)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))

from tui_scenarios import Rig  # noqa: E402

from arena import events as ev  # noqa: E402


async def test_attempt_view_shows_model_usage_and_observed_activity(tmp_path):
    rig = Rig()
    rig.start(
        "a-0000000b",
        "sprint",
        challenge="off-by-one",
        title="The Off-By-One",
        agent="mini-swe-agent@openai/gpt-4.1-mini",
        extra={"model": "openai/gpt-4.1-mini", "limits": {"tokens": 400000, "calls": 150}},
    )
    pub = lambda t, kind, data: rig.bus.publish("a-0000000b", t, kind, data)  # noqa: E731
    pub(
        3.0,
        ev.MODEL_CALL,
        {
            "provider": "openai",
            "model": "gpt-4.1-mini",
            "input_tokens": 1800,
            "output_tokens": 240,
            "latency_ms": 812.0,
            "status": 200,
            "cost_usd": 0.0011,
        },
    )
    pub(3.0, ev.MODEL_TOOL_CALL, {"name": "bash"})
    pub(3.2, ev.FILE_READ, {"path": "sorter.py", "observed": True})
    pub(
        3.3,
        ev.COMMAND_RUN,
        {
            "argv": ["python3", "-m", "pytest", "-q"],
            "command": "python3 -m pytest -q",
            "exit_code": 1,
            "duration_s": 0.4,
            "observed": True,
            "ran_tests": True,
            "passed": 6,
            "failed": 3,
        },
    )
    pub(3.4, ev.AGENT_OUTPUT, {"stream": "stdout", "text": "6 passed, 3 failed"})
    rig.time.set(4)
    app = rig.app(theme="gauntlet-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        pilot.app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.tick()
        await pilot.pause()
        info = str(pilot.app.screen.query_one("#attempt-info").render())
        assert "mini-swe-agent@openai/gpt-4.1-mini" in info and "2.0k/400.0k tok" in info and "1/150 calls" in info
        assert "$0.00" in info
        lines = [a.text for a in pilot.app.adapter.views["a-0000000b"].activity]
        assert any("model gpt-4.1-mini: 1800 in / 240 out tokens" in t for t in lines)
        assert "tool call bash" in lines and "read sorter.py" in lines
        assert any("python3 -m pytest -q → exit 1 (6 passed, 3 failed)" in t for t in lines)
        pilot.app.save_screenshot(str(tmp_path / "real-agent.svg"))
    assert (tmp_path / "real-agent.svg").stat().st_size > 1000
