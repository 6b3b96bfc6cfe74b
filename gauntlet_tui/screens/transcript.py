"""An attempt's model calls, decoded (issue 35 item 3): the calls listed, one line each
(number, status, tokens, latency, what the model said or called), and the highlighted
call opened beside them: the new messages sent, the answer's text and tool calls, notes.

Bounded: the list holds one line per call; the open call is the only one decoded
(``arena.transcripts.Transcript.call``), cut at ``render.SCREEN``'s limits; the file is
read a call at a time, and while the attempt runs only the calls written since the last
look are read (``Transcript.update``). Every string from the model or the agent is text
(``gauntlet_tui.text.line``): escape sequences are stripped, ``[@click=...]`` is shown,
never run. No rules here: decoding is ``arena.transcripts``'."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from arena.transcripts import CallInfo, Transcript
from arena.transcripts.render import SCREEN, call_lines, cost_text, index_line
from gauntlet_tui import keys
from gauntlet_tui.text import line, lines
from gauntlet_tui.widgets.footer import GauntletFooter

POLL_S = 2.0  # how often a live attempt's transcript is looked at for new calls


def _styled(text: str, first: bool) -> Content:
    stripped = text.lstrip()
    if first:
        return line((text, "bold"))
    if stripped.startswith("note:"):
        return line((text, "$warning"))
    if stripped.startswith("error:"):
        return line((text, "$error"))
    if stripped.startswith("tool call"):
        return line((text, "$success"))
    if text[:1] != " " and text.split(" ", 1)[0].rstrip(":") in ("system", "tools", "messages", "answer"):
        return line((text, "$accent"))
    return line(text)


def call_content(text_lines: list[str]) -> Content:
    """A call's rendered lines as a widget's content: text, never markup."""
    return lines(_styled(t, i == 0) for i, t in enumerate(text_lines))


class TranscriptScreen(Screen):
    DEFAULT_CSS = """
    TranscriptScreen #transcript-info { height: auto; padding: 0 1; background: $panel; }
    TranscriptScreen #transcript-calls { width: 2fr; height: 1fr; border: round $foreground 30%; }
    TranscriptScreen #transcript-calls { text-wrap: nowrap; text-overflow: ellipsis; }
    TranscriptScreen #transcript-call { width: 3fr; height: 1fr; border: round $foreground 30%; padding: 0 1; }
    TranscriptScreen #transcript-calls:focus, TranscriptScreen #transcript-call:focus { border: round $border; }
    """
    BINDINGS = [keys.BACK, keys.CALL_PREV, keys.CALL_NEXT]

    def __init__(self, store: Path | None, attempt: str, *, live: bool = False) -> None:
        super().__init__(name=f"transcript-{attempt}")
        self.store, self.attempt, self.live = store, attempt, live
        self.transcript: Transcript | None = None
        self.infos: list[CallInfo] = []
        self.opened: int | None = None
        self._tx_lock = threading.Lock()  # one reader of the transcript at a time (worker threads)
        self._file_size = -1

    def compose(self) -> ComposeResult:
        yield Static(line(f"Transcript of {self.attempt}: reading…"), id="transcript-info")
        with Horizontal():
            yield OptionList(id="transcript-calls")
            with VerticalScroll(id="transcript-call"):
                yield Static(line("Select a call."), id="transcript-call-body")
        yield GauntletFooter()

    def on_mount(self) -> None:
        self.query_one("#transcript-calls", OptionList).border_title = "calls"
        self.query_one("#transcript-call", VerticalScroll).border_title = "call"
        self.load_more()
        if self.live:
            self.set_interval(POLL_S, self.load_more)

    # -- the list ----------------------------------------------------------------------
    def _read_new(self) -> list[CallInfo]:
        t = self.transcript
        if t is None or t.path is None:
            return []
        try:
            size = t.path.stat().st_size
        except OSError:
            return []
        if size == self._file_size:
            return []
        with self._tx_lock:
            self._file_size = size
            return t.update()

    async def _open_transcript(self) -> None:
        """The transcript, with the attempt's ``model.call`` events for the costs of calls
        recorded before the gateway kept them in the transcript."""
        from gauntlet_tui.history import load_events  # noqa: PLC0415

        assert self.store is not None
        try:
            events = await load_events(self.store, self.attempt) or []
        except Exception:  # noqa: BLE001 - costs are a nicety; the calls are the point
            events = []
        model_calls = [e.data for e in events if e.kind == "model.call"]
        self.transcript = Transcript.of(self.store, self.attempt, model_calls)

    @work(exclusive=True, group="transcript-index")
    async def load_more(self) -> None:
        if self.transcript is None and self.store is not None:
            await self._open_transcript()
        new = await asyncio.to_thread(self._read_new)
        if not self.is_attached:
            return  # closed meanwhile
        calls = self.query_one("#transcript-calls", OptionList)
        if new:
            self.infos += new
            calls.add_options([Option(line(index_line(i)), id=str(i.n)) for i in new])
            if calls.highlighted is None:
                calls.highlighted = 0
                calls.focus()
        self._show_info()

    def _show_info(self) -> None:
        n = len(self.infos)
        tokens = sum((i.input_tokens or 0) + (i.output_tokens or 0) for i in self.infos)
        costs = [i.cost_usd for i in self.infos if i.cost_usd is not None]
        bits = [f"Transcript of {self.attempt}", f"{n} call(s) kept", f"{tokens:,} tokens"]
        if costs:
            bits.append(cost_text(sum(costs)))
        if self.transcript is None:
            bits.append("no store: nothing was recorded")
        elif not n:
            bits.append("no model call kept yet" if self.live else "no model call was kept")
        text = " · ".join(bits) + ("  (live)" if self.live else "")
        self.query_one("#transcript-info", Static).update(line(text))

    # -- one call ----------------------------------------------------------------------
    @on(OptionList.OptionHighlighted, "#transcript-calls")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.open_call(int(event.option.id))

    def _call_text(self, n: int) -> list[str]:
        assert self.transcript is not None
        with self._tx_lock:
            try:
                return call_lines(self.transcript.call(n), SCREEN)
            except (IndexError, OSError) as exc:
                return [f"call {n}: could not be read ({type(exc).__name__})"]

    @work(exclusive=True, group="transcript-call")
    async def open_call(self, n: int) -> None:
        self.opened = n
        text = await asyncio.to_thread(self._call_text, n)
        if self.opened != n or not self.is_attached:
            return  # another call was opened meanwhile, or the screen closed
        box = self.query_one("#transcript-call", VerticalScroll)
        box.border_title = f"call {n} of {len(self.infos)}"
        self.query_one("#transcript-call-body", Static).update(call_content(text))
        box.scroll_home(animate=False)

    def action_call(self, step: int) -> None:
        """Open the call ``step`` away from the highlighted one ([ and ])."""
        calls = self.query_one("#transcript-calls", OptionList)
        if not calls.option_count:
            return
        at = calls.highlighted if calls.highlighted is not None else 0
        calls.highlighted = max(0, min(calls.option_count - 1, at + step))


def open_transcript(node: Any, attempt: str, *, live: bool = False) -> None:
    """Push the transcript screen of ``attempt`` from any screen (the attempt view, past
    attempts): the app's store says where the transcript is."""
    node.app.push_screen(TranscriptScreen(getattr(node.app, "store_path", None), attempt, live=live))
