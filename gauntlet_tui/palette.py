"""The command palette, minus a crash: Textual's ``CommandList`` pages through a line
map built at its first layout, so PageUp/PageDown on a list that has options but has
not been laid out yet (``ctrl+p``, ``zz``, PageDown typed at once: the hits arrive and
are highlighted while the list is still hidden) raise ``KeyError``. Here a page move on
a list without its line map yet goes to the first/last option instead. The flags'
watchers, run after the palette has closed, find no list and do nothing."""
from __future__ import annotations

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
    return bool(command_list.scrollable_content_region) and \
        highlighted in command_list._line_cache.index_to_line
