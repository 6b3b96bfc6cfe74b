"""The command palette, minus a crash: Textual's ``CommandList`` pages through a line
map built at its first layout, so PageUp/PageDown on a list that has options but has
not been laid out yet (``ctrl+p``, ``zz``, PageDown typed at once: the hits arrive and
are highlighted while the list is still hidden) raise ``KeyError``. Here a page move on
a list without its line map yet goes to the first/last option instead. The flags'
watchers, run after the palette has closed, find no list and do nothing."""

from __future__ import annotations

from typing import Any, Iterable

from textual.app import SystemCommand
from textual.command import CommandList, CommandPalette
from textual.css.query import NoMatches


class GauntletPalette(CommandPalette):
    def _action_command_list(self, action: str) -> None:
        try:
            command_list = self.query_one(CommandList)
        except NoMatches:  # the palette is closing: nothing to move
            return
        if action in ("page_up", "page_down") and not _laid_out(command_list):
            action = "first" if action == "page_up" else "last"
        super()._action_command_list(action)

    # Textual's watchers of the busy/visible flags run as tasks and query the list, which
    # is gone when the palette closed in between (keys mashed): then there is nothing to do.
    async def _watch__show_busy(self) -> None:
        try:
            await super()._watch__show_busy()
        except NoMatches:
            pass

    def _watch__list_visible(self) -> None:
        try:
            super()._watch__list_visible()
        except NoMatches:
            pass


def _laid_out(command_list: CommandList) -> bool:
    highlighted = command_list.highlighted or 0
    if not command_list.option_count:
        return True  # Textual's own early return handles an empty list
    return bool(command_list.scrollable_content_region) and highlighted in command_list._line_cache.index_to_line


def app_commands(app: Any) -> Iterable[SystemCommand]:
    """The room's own actions in the palette: open/stop/replay act on the dashboard's
    selected attempt, start goes through the library."""
    from gauntlet_tui.screens.home import HomeScreen

    home = next((s for s in app.screen_stack if isinstance(s, HomeScreen)), None)
    selected = home.selected() if home is not None and home.is_mounted else None
    yield SystemCommand("Library", "The challenge library (start an attempt from it)", app.action_library)
    yield SystemCommand(
        "Start an attempt…", "Pick a challenge in the library, then agent and sandbox", app.action_library
    )
    yield SystemCommand("Leaderboard", "Ratings of the agents over the store", app.action_leaderboard)
    yield SystemCommand("Past attempts", "Finished attempts and their scorecards", app.action_past)
    yield SystemCommand("Big board", "One card per attempt (projectors)", app.action_big_board)
    if selected and home is not None:
        yield SystemCommand(
            f"Open {selected}", "Open the selected attempt's view", lambda: app.open_attempt_screen(selected)
        )
        yield SystemCommand(f"Stop {selected}", "Stop the selected attempt (asks first)", home.action_stop)
        yield SystemCommand(
            f"Replay {selected}", "Replay the selected attempt from the store", lambda: app.open_replay(selected)
        )
    yield SystemCommand("Screenshot", "Save an SVG of the screen in the current directory", app.action_screenshot)
