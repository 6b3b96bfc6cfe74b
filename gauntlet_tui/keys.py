"""One registry of key bindings: every binding has an id and a tooltip, and screens
pick theirs from here so the same key means the same thing everywhere."""

from __future__ import annotations

from textual.binding import Binding


def _b(
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    id: str,
    show: bool = True,
    priority: bool = False,
    key_display: str | None = None,
) -> Binding:
    return Binding(
        key, action, description, show=show, priority=priority, tooltip=tooltip, id=id, key_display=key_display
    )


HELP = _b("question_mark", "app.help", "Help", "Show the keys of this screen", id="help", key_display="?")
QUIT = _b("q", "app.back_or_quit", "Quit/Back", "Back to the previous screen, or quit at home", id="quit")
BACK = _b("escape", "app.back", "Back", "Back to the previous screen", id="back", show=False)
FILTER = _b("slash", "filter", "Filter", "Filter the attempts by any text", id="filter", key_display="/")
OPEN = _b("enter", "open", "Open", "Open the selected item", id="open")
SORT = _b("s", "sort", "Sort", "Cycle the sort column and direction", id="sort")
STOP = _b("x", "stop", "Stop", "Stop the selected attempt (asks first)", id="stop")
PAUSE = _b("p", "pause", "Pause", "Pause or resume live updates", id="pause")
LIBRARY = _b("l", "app.library", "Library", "The challenge library", id="library")
PAST = _b("a", "app.past", "Attempts", "Past attempts and scorecards", id="past")
LEADERBOARD = _b("b", "app.leaderboard", "Leaderboard", "Elo ratings of agents", id="leaderboard")
PREV = _b("left_square_bracket", "prev", "Prev", "Previous submission's feedback", id="prev", key_display="[")
NEXT = _b("right_square_bracket", "next", "Next", "Next submission's feedback", id="next", key_display="]")
SHELL = _b("exclamation_mark", "shell", "Shell", "Open a shell in the attempt's workspace", id="shell", key_display="!")
SUBMIT = _b("u", "submit", "Submit", "Submit the workspace (asks first)", id="submit")
START = _b("r", "start", "Run", "Start an attempt on this challenge", id="start")
GENERATE = _b("g", "generate", "Generate", "Generate a challenge: architect, builder, then the gates", id="generate")
SPEC = _b("s", "spec", "Spec", "The generated spec (spec.yaml)", id="gen-spec")
PACKAGE = _b("i", "package", "Package", "The generated package: files, manifest, findings", id="gen-package")
PLAY = _b("h", "play", "Play", "Play the generated challenge yourself (the human agent)", id="gen-play")
PUBLISH = _b("P", "publish", "Publish", "Publish the generated challenge (gates 1-5, asks first)", id="gen-publish")
SPEED_UP = _b("plus", "speed(2.0)", "Faster", "Replay twice as fast", id="speed-up", key_display="+")
SLOW_DOWN = _b("minus", "speed(0.5)", "Slower", "Replay half as fast", id="slow-down", key_display="-")
SEEK_BACK = _b("left", "seek(-30)", "-30s", "Seek back 30 attempt seconds", id="seek-back", priority=True)
SEEK_FWD = _b("right", "seek(30)", "+30s", "Seek forward 30 attempt seconds", id="seek-forward", priority=True)
COMPARE = _b("c", "compare", "Compare", "Mark this attempt, then press c on another to compare them", id="compare")
REMOVE = _b("d", "remove", "Remove", "Remove the selected stored attempt and its files (asks first)", id="remove")
OLDER = _b("o", "older", "Older", "The store's older attempts, or back to the current heat", id="older")
BIG_BOARD = _b("v", "app.big_board", "Board", "The big board: one card per attempt (projectors)", id="big-board")
PAGE_NEXT = _b(
    "pagedown,right_square_bracket",
    "page(1)",
    "Next page",
    "The next page of cards",
    id="board-next",
    key_display="PgDn",
)
PAGE_PREV = _b(
    "pageup,left_square_bracket",
    "page(-1)",
    "Prev page",
    "The previous page of cards",
    id="board-prev",
    key_display="PgUp",
)
RAW = _b("R", "activity_raw", "Raw", "The activity pane: the agent's raw output, or its steps", id="activity-raw")
TRANSCRIPT = _b("t", "transcript", "Transcript", "The attempt's model calls, decoded", id="transcript")
CALL_PREV = _b(
    "left_square_bracket", "call(-1)", "Prev call", "Open the previous model call", id="call-prev", key_display="["
)
CALL_NEXT = _b(
    "right_square_bracket", "call(1)", "Next call", "Open the next model call", id="call-next", key_display="]"
)
