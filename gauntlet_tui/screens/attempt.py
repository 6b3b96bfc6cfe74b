"""The attempt view: the big clock, phases, trajectory, one feedback tab per submission,
the live activity stream; for ``--agent human``, a shell key and a submit key.

The screen holds no state of the attempt: ``refresh_view()`` (called by the app's
refresh timer, or replay's) reads the adapter's ``AttemptView`` and the live elapsed
time, and redraws what changed since the view's last version.
"""

from __future__ import annotations

from typing import Literal

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from gauntlet_tui.text import esc as escape
from textual.screen import Screen
from textual.widgets import Markdown, Static, TabbedContent, TabPane

from arena.view import AttemptView, usage_line
from gauntlet_tui import keys, shell
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.screens.confirm import ConfirmScreen
from gauntlet_tui.screens.host import may_act
from gauntlet_tui.widgets import ActivityStream, AttemptClock, FeedbackPane, PhaseTimeline, Trajectory
from gauntlet_tui.widgets.footer import GauntletFooter

SeverityLevel = Literal["information", "warning", "error"]
_WARN_TEXT: dict[str, tuple[str, SeverityLevel]] = {
    "soft": ("80% of the time used", "warning"),
    "hard": ("90% of the time used — hurry", "warning"),
    "cutoff": ("Time is up", "error"),
    "grace_end": ("Grace period over", "error"),
}


def edited_since_submit(view: AttemptView) -> bool:
    """Whether a file edit was seen since the last submission (or the start). True when
    the activity ring no longer reaches back that far (it cannot tell)."""
    since = view.last_submission_t if view.submissions else None
    if view.activity and since is not None and view.activity[0].t > since:
        return True
    return any(a.kind == "edit" and (since is None or a.t >= since) for a in view.activity)


def idle_countdown(view: AttemptView | None, handle: object) -> float | None:
    """Attempt seconds until the hang watchdog ends a live ``--agent human`` attempt left
    alone (the TUI unfocused, no shell open), or None: no countdown banner. Only the human
    player is told to focus the window or open the shell; a real or scripted agent's
    liveness is the watchdog's own (its model calls in flight count as activity)."""
    if view is None or view.agent != "human":
        return None
    hang_left = getattr(handle, "hang_left", None)
    return hang_left() if callable(hang_left) else None


class AttemptScreen(Screen):
    DEFAULT_CSS = """
    AttemptScreen #attempt-info { height: auto; max-height: 2; padding: 0 1; background: $panel; color: $foreground; }
    AttemptScreen #attempt-top { height: auto; }
    AttemptScreen #attempt-top AttemptClock { width: 1fr; }
    AttemptScreen #attempt-top Trajectory { width: 1fr; height: auto; min-height: 3; }
    AttemptScreen #attempt-body { height: 1fr; }
    AttemptScreen #feedback-box { width: 3fr; }
    AttemptScreen #feedback-empty { color: $text-muted; padding: 1; }
    AttemptScreen #feedback-box.-has-feedback #feedback-empty { display: none; }
    AttemptScreen #feedback-box #feedback { height: 1fr; }
    AttemptScreen ActivityStream { width: 2fr; }
    AttemptScreen #paused-banner { display: none; height: 1; background: $warning; color: $background; text-style: bold; padding: 0 1; }
    AttemptScreen.-paused #paused-banner { display: block; }
    AttemptScreen #hang-countdown { display: none; height: 1; padding: 0 1; background: $warning; color: $background; }
    AttemptScreen.-idle #hang-countdown { display: block; }
    """
    BINDINGS = [keys.BACK, keys.PREV, keys.NEXT, keys.PAUSE, keys.SHELL, keys.SUBMIT, keys.TRANSCRIPT, keys.RAW]

    def __init__(self, adapter: EngineAdapter, attempt_id: str) -> None:
        super().__init__(name=f"attempt-{attempt_id}")
        self.adapter = adapter
        self.attempt_id = attempt_id
        self.paused = False
        self._version = -1
        self._warning: str | None = None
        self._open_phases: set[int] = set()
        self._tabs: list[int] = []
        self._clearing: list[str] | None = None  # ids of the old panes while they are being removed
        self._notify_from_now = False
        self._ready = False

    # -- layout --------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="attempt-info")
        yield Static("PAUSED — live updates held (p to resume)", id="paused-banner")
        yield Static("", id="hang-countdown")
        with Horizontal(id="attempt-top"):
            yield AttemptClock(id="clock")
            yield Trajectory(id="trajectory")
        yield PhaseTimeline(id="phases")
        with Horizontal(id="attempt-body"):
            with Vertical(id="feedback-box"):
                yield Static("No feedback yet: each submission's document appears in its own tab.", id="feedback-empty")
                with TabbedContent(id="feedback"):
                    with TabPane("Briefing", id="briefing"):
                        with VerticalScroll():
                            yield Markdown("", id="briefing-text")
            yield ActivityStream(id="activity")
        yield GauntletFooter()

    def on_mount(self) -> None:
        # Nested widgets (the tabs' own children) finish mounting after this handler.
        self.call_after_refresh(self._first_draw)

    def _first_draw(self) -> None:
        self._ready = True
        self.refresh_view()
        self._notify_from_now = True  # warnings already past when opened are not re-announced

    @property
    def view(self) -> AttemptView | None:
        return self.adapter.views.get(self.attempt_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("shell", "submit"):
            view = self.view
            return bool(view and view.agent == "human" and self.adapter.is_live(self.attempt_id))
        return True

    # -- drawing --------------------------------------------------------------------
    def refresh_view(self) -> None:
        view = self.view
        if view is None or self.paused or not self._ready:
            return
        elapsed = self.adapter.elapsed(self.attempt_id)
        self.query_one(AttemptClock).show(view, elapsed)
        self._draw_countdown()
        if view.version == self._version:
            return
        if view.version < self._version:  # reset (replay seeking back)
            self._reset_drawn()
        self._version = view.version
        self._draw_info(view, elapsed)
        self._announce(view)
        self.query_one(Trajectory).show(view)
        phases = self.query_one(PhaseTimeline)
        phases.display = len(view.phases) > 1
        fresh = self._fresh_phase(view)
        phases.show(view, fresh=fresh)
        self._draw_feedback(view)
        self._draw_briefing(view)
        self.query_one(ActivityStream).show(view)

    def _draw_countdown(self) -> None:
        """A human attempt not held (TUI unfocused, no shell open): the hang watchdog's
        countdown, so nobody is ended as hung without warning."""
        left = idle_countdown(self.view, self.adapter.handle(self.attempt_id))
        self.set_class(left is not None, "-idle")
        if left is not None:
            text = (
                f"No activity seen: this attempt ends as HUNG in {left:.0f}s (attempt time)"
                " — focus this window, open the shell (!) or edit a file"
            )
            self.query_one("#hang-countdown", Static).update(text)

    def _draw_info(self, view: AttemptView, elapsed: float) -> None:
        score = "—" if view.last_score is None else f"{view.last_score:.1f}"
        info = (
            f"[b]{escape(view.title or view.challenge)}[/] · {escape(view.name)} · {view.format} · "
            f"{view.weight_class} · submissions {view.submissions_used}/{view.budget}"
            + (f" ({', '.join(f'#{n}' for n in sorted(view.replaced))} replaced)" if view.replaced else "")
            + (
                f" · {view.submissions_left} left in phase {view.current_phase}"
                if view.budget_scope == "per_phase"
                else ""
            )
            + f" · score {score}"
        )
        usage = usage_line(view)
        if usage:  # a real agent: its model and usage against its limits, live
            info += f"\nmodel {escape(view.model)} · {escape(usage)}"  # a second header line
        if view.node:
            info += f" · node {escape(view.node)}"
        if view.finished:
            info += f" · [b]{escape(view.shown_status)}[/]"
        self.query_one("#attempt-info", Static).update(info)

    def _announce(self, view: AttemptView) -> None:
        if view.warning != self._warning:
            self._warning = view.warning
            if view.warning and self._notify_from_now:
                text, severity = _WARN_TEXT[view.warning]
                if view.warning == "cutoff" and view.grace_s:
                    text += f" — grace period of {view.grace_s:.0f}s for a final message"
                self.notify(text, title="Clock", severity=severity, timeout=4)

    def _fresh_phase(self, view: AttemptView) -> int | None:
        opened = {p.number for p in view.phases if p.open and p.number > 1}
        new = opened - self._open_phases
        self._open_phases = opened
        if new and self._notify_from_now:  # phases open before the screen was: not "fresh"
            n = max(new)
            phase = next(p for p in view.phases if p.number == n)
            self.notify(f"Phase {n} revealed: {phase.id}", title="Phase", timeout=4)
            return n
        return None

    def _draw_feedback(self, view: AttemptView) -> None:
        if self._clearing is not None:
            return
        tabs = self.query_one("#feedback", TabbedContent)
        new = [n for n in sorted(view.feedback) if n not in self._tabs]
        added = []
        for n in new:
            self._tabs.append(n)
            added.append(tabs.add_pane(TabPane(f"#{n}", FeedbackPane(view.feedback[n]), id=f"sub-{n}")))
        if new:  # show the newest once its pane is mounted
            self.run_worker(self._activate(added, f"sub-{new[-1]}"), group="feedback-active")
            self.query_one("#feedback-box").add_class("-has-feedback")

    async def _activate(self, added: list, pane: str) -> None:
        for waiting in added:
            await waiting
        self.query_one("#feedback", TabbedContent).active = pane

    def _draw_briefing(self, view: AttemptView) -> None:
        """The agent's briefing (again when a phase is revealed)."""
        key = (view.challenge, sum(1 for p in view.phases if p.open))
        if key == getattr(self, "_briefing_key", None):
            return
        self._briefing_key = key
        from gauntlet_tui.history import briefing_of

        text = briefing_of(view, self.adapter.handle(self.attempt_id))
        self.briefing = text
        self.query_one("#briefing-text", Markdown).update(text)

    def _reset_drawn(self) -> None:
        self._warning = None
        self._open_phases = set()
        if self._tabs:
            self._tabs = []
            self.query_one("#feedback-box").remove_class("-has-feedback")
            tabs = self.query_one("#feedback", TabbedContent)
            self._clearing = [p.id for p in tabs.query(TabPane) if p.id and p.id.startswith("sub-")]
            self.run_worker(self._after_clear(), group="feedback-tabs")

    async def _after_clear(self) -> None:
        """Panes are removed asynchronously: redraw only once the old ones are gone."""
        tabs = self.query_one("#feedback", TabbedContent)
        for pane in self._clearing or []:
            await tabs.remove_pane(pane)
        self._clearing = None
        view = self.view
        if view is not None:
            self._draw_feedback(view)

    # -- actions --------------------------------------------------------------------
    def action_pause(self) -> None:
        self.paused = not self.paused
        self.set_class(self.paused, "-paused")
        if not self.paused:
            self.refresh_view()

    def _step_tab(self, delta: int) -> None:
        if not self._tabs:
            return
        tabs = self.query_one("#feedback", TabbedContent)
        current = int(tabs.active.split("-")[1]) if tabs.active.startswith("sub-") else self._tabs[-1]
        i = max(0, min(len(self._tabs) - 1, self._tabs.index(current) + delta))
        tabs.active = f"sub-{self._tabs[i]}"

    def action_transcript(self) -> None:
        """This attempt's model calls, decoded (issue 35); new calls appear while it runs."""
        from gauntlet_tui.screens.transcript import open_transcript  # noqa: PLC0415

        view = self.view
        open_transcript(self, self.attempt_id, live=view is not None and not view.finished)

    def action_activity_raw(self) -> None:
        """The activity pane: the agent's raw output too, or its steps only (issue 35)."""
        raw = self.query_one(ActivityStream).toggle_raw()
        self.notify("Activity: raw output shown" if raw else "Activity: steps, no raw output", timeout=2)

    def action_prev(self) -> None:
        self._step_tab(-1)

    def action_next(self) -> None:
        self._step_tab(1)

    @work(exclusive=True, group="shell")
    async def action_shell(self) -> None:
        """Suspend the app and open the shell in the attempt's sandbox (gauntlet_tui.shell)."""
        if not may_act(self, "open a shell in an attempt's sandbox"):
            return
        handle = self.adapter.handle(self.attempt_id)
        if handle is None or not hasattr(handle, "shell_command"):
            self.notify("This attempt has no shell to open.", severity="error")
            return
        try:
            command = handle.shell_command()
        except Exception as exc:  # noqa: BLE001 - ShellUnavailable, SandboxError
            self.notify(f"Cannot open a shell: {exc}", severity="error")
            return
        async with handle.shell_session():
            rc = await shell.open_shell(self.app, command)
        if command.warning:
            self.notify(f"The shell ran on the host: {command.warning}.", severity="warning", timeout=6)
        elif rc == 125:
            self.notify("The sandbox shell could not start (exit 125).", severity="error")
        self.refresh_view()

    @work(exclusive=True, group="submit")
    async def action_submit(self) -> None:
        if not may_act(self, "submit"):
            return
        view = self.view
        handle = self.adapter.handle(self.attempt_id)
        if view is None or handle is None:
            return
        elapsed = self.adapter.elapsed(self.attempt_id)
        cooldown = view.cooldown_left(elapsed)
        wait = "none" if not cooldown else f"{cooldown:.0f}s left"
        question = (
            f"Submit the workspace now?\n{view.submissions_left} of {view.budget} submissions left; cooldown: {wait}."
        )
        replaces = view.would_replace(elapsed)
        if replaces is not None:
            question += (
                f"\n⚠ This REPLACES submission {replaces}: a second Sprint submission this"
                f" soon takes its place (only the new one is scored)."
            )
        if not edited_since_submit(view):
            question += "\n⚠ The workspace is UNCHANGED since " + (
                "the last submission." if view.submissions else "the start: nothing was edited."
            )
        if not await self.app.push_screen_wait(ConfirmScreen(question)):
            return
        self.notify("Submitting — the judge is running…", timeout=3)
        reply = await handle.submit()
        if isinstance(reply, dict) and reply.get("ok") is False:
            self.notify(f"Refused: {reply.get('reason', '')}", severity="error")
