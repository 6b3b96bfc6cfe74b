"""The activity pane's screenshots for docs/screens.md (not a test):

    python tests/steps/screens.py docs/screenshots

A Claude Code and a Codex attempt, replayed from their real captured output (fixtures/)
with the model calls, observed commands and the submission around them (pane_kit.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "tui")]

from pane_kit import replay  # noqa: E402
from tui_scenarios import Rig  # noqa: E402

SHOTS = [
    ("claude-code", "claude_code_edit", "claude-code@anthropic/claude-sonnet-4-5",
     [{"text": "I look for a leaked key first, then read the code.", "tools": ["Bash"]}, {"tools": ["Bash"]}]),
    ("codex", "codex_patch", "codex@openai/gpt-5-codex",
     [{"tools": ["exec_command"]}, {"tools": ["exec_command"]}, {"tools": ["exec_command"]}]),
]  # fmt: skip


async def shoot(adapter: str, fixture: str, agent: str, calls: list[dict], out: Path) -> None:
    rig = Rig()
    model = agent.split("@", 1)[1]
    rig.start(
        "a-0000000c", "sprint", challenge="off-by-one", title="The Off-By-One", agent=agent, extra={"model": model}
    )
    rig.time.set(replay(rig.bus, "a-0000000c", adapter, fixture, calls=calls))
    app = rig.app(theme="gauntlet-dark")
    async with app.run_test(size=(160, 46)) as pilot:
        pilot.app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.tick()
        await pilot.pause()
        pilot.app.save_screenshot(str(out / f"activity-{adapter}.svg"))


async def main(out: Path) -> None:
    for adapter, fixture, agent, calls in SHOTS:
        await shoot(adapter, fixture, agent, calls, out)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
