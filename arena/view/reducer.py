"""The reducer: ``AttemptView.apply(event)`` folds an attempt's events, in order, into
what its screens show (``arena.view``; the activity lines are ``arena.view.activity``'s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.formats import FormatRules, rules_for
from arena.names import display_name, shown_status
from arena import events as K
from arena.events import Event
from arena.usage import ModelUsage
from arena.steps.lines import model_line, step_line
from arena.view.activity import ACTIVITY_KINDS, ActivityLog, describe


@dataclass
class Phase:
    number: int  # 1-based; phase 1 is the top-level briefing
    id: str
    reveal_at: float | None = None  # fraction of the time limit
    open: bool = False
    by: str | None = None  # "threshold" or "time" once revealed
    briefing: str | None = None
    hint: str | None = None
    revealed_t: float | None = None


@dataclass
class AttemptView:
    attempt: str = ""
    activity_size: int = 200
    # from attempt.started
    challenge: str = ""
    title: str = ""
    agent: str = ""
    format: str = ""
    weight_class: str = ""
    category: str = ""
    time_limit_s: float = 0.0
    budget: int = 0
    budget_scope: str = "global"  # "per_phase": `budget` is per Marathon phase
    grace_s: float = 0.0
    time_scale: float = 1.0
    sandbox: str = ""
    deliverables: list[dict[str, Any]] = field(default_factory=list)
    phases: list[Phase] = field(default_factory=list)
    # running state
    started: bool = False
    elapsed_s: float = 0.0  # attempt time of the latest event
    warning: str | None = None  # None | "soft" | "hard" | "cutoff" | "grace_end"
    submissions: int = 0  # accepted submissions, replaced ones included
    last_submission_t: float | None = None
    replaced: set[int] = field(default_factory=set)
    submission_phase: dict[int, int] = field(default_factory=dict)  # number -> phase open then
    replaced_t: float | None = None  # attempt time of the latest Sprint double-submit replacement
    refusals: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)
    feedback: dict[int, dict[str, Any]] = field(default_factory=dict)
    status: str = "running"
    reason: str = ""
    scored_submission: int | None = None
    # real agents (CONTRACT §8): the model, its usage and limits
    model: str = ""
    limits: dict[str, Any] = field(default_factory=dict)
    usage: ModelUsage = field(default_factory=ModelUsage)  # arena.usage: show and judge count the same
    node: str = ""
    heat: str = ""  # the heat (run id) it ran in, from attempt.started (docs/INTERFACES.md)
    contestant: str = ""  # the display name a plan entry gave, if any
    adapter: str = ""  # the built-in adapter of an agent file, if any
    version: int = 0  # bumped on every applied event: cheap change detection
    activity_total: int = 0  # activity entries ever logged (the ring keeps the last N)
    activity: ActivityLog = field(init=False)
    # the readable activity (issue 35): the same lines without the raw agent output and the
    # gateway's per-tool lines (a model call's line names its tool calls), steps included
    readable_total: int = 0
    readable: ActivityLog = field(init=False)
    _tools: list[str] = field(default_factory=list, repr=False)  # tool calls of the call under way

    def __post_init__(self) -> None:
        self.activity = ActivityLog(self.activity_size)
        self.readable = ActivityLog(self.activity_size)

    # -- derived -----------------------------------------------------------------
    @property
    def name(self) -> str:
        """The contestant's display name, whole (``arena.names``; screens short of room
        use a ``Namer`` of the contestants shown)."""
        return display_name(self.agent, self.model, self.contestant)

    @property
    def shown_status(self) -> str:
        """The status word screens show: ``hung`` for an attempt ended as hung."""
        return shown_status(self.status, self.reason)

    @property
    def tokens(self) -> int:
        return self.usage.tokens

    @property
    def calls(self) -> int:
        """Every model call recorded (arena.usage's rule), refused and cancelled ones too."""
        return self.usage.calls

    @property
    def cost_usd(self) -> float | None:
        return self.usage.cost_usd

    @property
    def rules(self) -> FormatRules | None:
        try:
            return rules_for(self.format) if self.format else None
        except KeyError:
            return None

    @property
    def submissions_used(self) -> int:
        """Submissions counted toward the budget (a Sprint double-submit replaces one)."""
        return self.submissions - len(self.replaced)

    @property
    def submissions_left(self) -> int:
        """Left in the budget in play: the open phase's with ``budget_scope`` per_phase."""
        if self.budget_scope == "per_phase":
            cur = self.current_phase
            used = sum(
                1
                for n in range(1, self.submissions + 1)
                if n not in self.replaced and self.submission_phase.get(n, 1) == cur
            )
            return max(0, self.budget - used)
        return max(0, self.budget - self.submissions_used)

    def recently_replaced(self, elapsed: float, window_s: float = 30.0) -> bool:
        """A submission was replaced (Sprint double submit) less than ``window_s`` ago."""
        return self.replaced_t is not None and 0 <= elapsed - self.replaced_t < window_s

    def submission_state(self, n: int) -> str:
        """How a submission stands: "replaced" (a Sprint double submit within the window),
        "scored", "judging"."""
        if n in self.replaced:
            return "replaced"
        return "scored" if n in self.scores else "judging"

    @property
    def trajectory(self) -> list[float]:
        return [s for n, s in sorted(self.scores.items()) if n not in self.replaced]

    @property
    def last_score(self) -> float | None:
        traj = self.trajectory
        return traj[-1] if traj else None

    @property
    def current_phase(self) -> int:
        opened = [p.number for p in self.phases if p.open]
        return max(opened) if opened else 1

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def fraction(self, elapsed: float | None = None) -> float:
        t = self.elapsed_s if elapsed is None else elapsed
        return t / self.time_limit_s if self.time_limit_s > 0 else 0.0

    def cutoff_s(self) -> float:
        rules = self.rules
        return self.time_limit_s * (rules.cutoff if rules else 1.0)

    def stage(self, elapsed: float | None = None) -> str:
        """``running`` before cutoff, ``grace`` inside the grace period, ``over`` after."""
        t = self.elapsed_s if elapsed is None else elapsed
        if self.warning == "grace_end" or self.finished:
            return "over"
        if t < self.cutoff_s() and self.warning != "cutoff":
            return "running"
        if t < self.cutoff_s() + self.grace_s:
            return "grace"
        return "over"

    def clock_level(self, elapsed: float | None = None) -> str:
        """``ok`` | ``warning`` (>= soft mark) | ``urgent`` (>= hard mark), by fraction."""
        frac = self.fraction(elapsed)
        rules = self.rules
        soft, hard = (rules.soft_warning, rules.hard_warning) if rules else (0.8, 0.9)
        if frac >= hard:
            return "urgent"
        if frac >= soft:
            return "warning"
        return "ok"

    def would_replace(self, elapsed: float) -> int | None:
        """The submission a submission now would replace (Sprint's double-submit window)."""
        rules = self.rules
        window = getattr(rules, "double_submit_window_s", 0) if rules else 0
        if not window or self.last_submission_t is None or not self.submissions:
            return None
        return self.submissions if elapsed - self.last_submission_t < window else None

    def cooldown_left(self, elapsed: float | None = None) -> float:
        """Seconds until the format's cooldown allows another submission (0 = now)."""
        rules = self.rules
        if rules is None or not rules.cooldown_s or self.last_submission_t is None:
            return 0.0
        t = self.elapsed_s if elapsed is None else elapsed
        return max(0.0, rules.cooldown_s - (t - self.last_submission_t))

    def remaining(self, elapsed: float | None = None) -> float:
        t = self.elapsed_s if elapsed is None else elapsed
        return max(0.0, self.cutoff_s() - t)

    # -- the reducer --------------------------------------------------------------
    def apply(self, ev: Event) -> None:
        if not self.attempt:
            self.attempt = ev.attempt
        self.version += 1
        if ev.t > self.elapsed_s:
            self.elapsed_s = ev.t
        handler = _HANDLERS.get(ev.kind)
        if handler is not None:
            handler(self, ev)
        elif ev.kind in ACTIVITY_KINDS:
            raw = ev.kind in (K.AGENT_OUTPUT, K.MODEL_TOOL_CALL)  # not in the readable lines
            if ev.kind == K.MODEL_TOOL_CALL and len(self._tools) < 16:
                self._tools.append(str(ev.data.get("name", "?")))
            self._log(ev.t, ACTIVITY_KINDS[ev.kind], describe(ev), None if raw else "")

    def _log(self, t: float, kind: str, text: str, readable: str | None = "") -> None:
        """One activity line; ``readable``: its readable form ("" the same, None: raw only)."""
        entry = (t, kind, text)
        self.activity.push(entry)
        self.activity_total += 1
        if readable is not None:
            self.readable.push((t, kind, readable) if readable else entry)
            self.readable_total += 1

    def _step(self, ev: Event) -> None:
        kind, text = step_line(ev.data)
        self._log(ev.t, kind, text)

    def _started(self, ev: Event) -> None:
        d = ev.data
        self.started = True
        self.challenge = str(d.get("challenge", ""))
        self.title = str(d.get("title", "") or self.challenge)
        self.agent = str(d.get("agent", ""))
        self.format = str(d.get("format", ""))
        self.weight_class = str(d.get("weight_class", ""))
        self.category = str(d.get("category", ""))
        self.time_limit_s = float(d.get("time_limit_s", 0) or 0)
        self.budget = int(d.get("budget", 0) or 0)
        self.budget_scope = str(d.get("budget_scope", "global") or "global")
        self.grace_s = float(d.get("grace_s", 0) or 0)
        self.time_scale = float(d.get("time_scale", 1) or 1)
        self.sandbox = str(d.get("sandbox", ""))
        self.model = str(d.get("model", "") or "")
        self.heat = str(d.get("heat") or d.get("run") or "")
        self.contestant = str(d.get("contestant") or "")
        self.adapter = str(d.get("adapter") or "")
        self.limits = dict(d.get("limits") or {})
        node = d.get("node")
        self.node = str(node.get("host", "") if isinstance(node, dict) else (node or ""))
        self.deliverables = list(d.get("deliverables") or [])
        self.phases = [Phase(1, "foundation", open=True)]
        for i, p in enumerate(d.get("phases") or []):
            self.phases.append(Phase(i + 2, str(p.get("id", f"phase-{i + 2}")), p.get("reveal_at")))
        self._log(ev.t, "agent", f"attempt started: {self.title} — {self.agent}")

    def _resumed(self, ev: Event) -> None:
        self.elapsed_s = max(self.elapsed_s, float(ev.data.get("elapsed_s", ev.t)))
        self._log(ev.t, "agent", "attempt resumed")

    def _finished(self, ev: Event) -> None:
        self.status = str(ev.data.get("status", "finished"))
        self.reason = str(ev.data.get("reason", "") or "")
        self.scored_submission = ev.data.get("scored_submission")
        self._log(ev.t, "agent", f"attempt {self.status}" + (f": {self.reason}" if self.reason else ""))

    def _clock(self, ev: Event) -> None:
        self.warning = {
            K.CLOCK_SOFT: "soft",
            K.CLOCK_HARD: "hard",
            K.CLOCK_CUTOFF: "cutoff",
            K.CLOCK_GRACE_END: "grace_end",
        }[ev.kind]
        text = {
            "soft": "soft warning",
            "hard": "hard warning",
            "cutoff": "time is up" + (" — grace period" if self.grace_s else ""),
            "grace_end": "grace period over",
        }[self.warning]
        self._log(ev.t, "clock", f"{text} ({ev.data.get('remaining_s', 0):.0f}s left)")

    def _phase(self, ev: Event) -> None:
        n = int(ev.data.get("phase", 0))
        phase = next((p for p in self.phases if p.number == n), None)
        if phase is None:
            phase = Phase(n, str(ev.data.get("id", f"phase-{n}")))
            self.phases.append(phase)
            self.phases.sort(key=lambda p: p.number)
        phase.open = True
        phase.id = str(ev.data.get("id", phase.id))
        phase.by = ev.data.get("by")
        phase.briefing = ev.data.get("briefing")
        phase.hint = ev.data.get("hint")
        phase.revealed_t = ev.t
        self._log(ev.t, "phase", f"phase {n} revealed: {phase.id} (by {phase.by})")

    def _received(self, ev: Event) -> None:
        n = int(ev.data.get("submission", self.submissions + 1))
        self.submissions = max(self.submissions, n)
        self.last_submission_t = ev.t
        self.submission_phase[n] = self.current_phase
        if ev.data.get("replaces"):
            self.replaced.add(int(ev.data["replaces"]))
            self.replaced_t = ev.t
        diff = ev.data.get("diff") or {}
        self._log(
            ev.t,
            "submit",
            f"submission {n} received: {diff.get('files_changed', 0)} files, "
            f"+{diff.get('lines_added', 0)} -{diff.get('lines_removed', 0)}",
        )

    def _replaced(self, ev: Event) -> None:
        n = int(ev.data.get("submission", 0))
        self.replaced.add(n)
        self.replaced_t = ev.t
        self._log(ev.t, "submit", f"submission {n} replaced by {ev.data.get('by')}")

    def _refused(self, ev: Event) -> None:
        self.refusals.append(dict(ev.data))
        self._log(ev.t, "refused", f"submission refused ({ev.data.get('code')}): {ev.data.get('reason', '')}")

    def _judged(self, ev: Event) -> None:
        n = int(ev.data.get("submission", 0))
        if ev.data.get("score") is not None:
            self.scores[n] = float(ev.data["score"])
        self._log(ev.t, "submit", f"submission {n} judged: score {self.scores.get(n, 0):.1f}")

    def _feedback(self, ev: Event) -> None:
        n = int(ev.data.get("submission", 0))
        self.feedback[n] = dict(ev.data.get("feedback") or {})
        self._log(ev.t, "feedback", f"feedback {n} delivered")


def _model_call(view: AttemptView, ev: Event) -> None:
    view.usage.add(ev.data)
    tools, view._tools = view._tools, []
    view._log(ev.t, "model", describe(ev), model_line(ev.data, tools) or "")


def usage_line(view: AttemptView) -> str:
    """``12.3k tok · 14 calls (1 refused) · $0.04 / $5.00`` (limits shown where set; the calls
    not answered in brackets), or ``""``."""
    if not view.model and not view.calls:
        return ""
    lim = view.limits
    tok = _k(view.tokens) + (f"/{_k(lim['tokens'])}" if lim.get("tokens") is not None else "")
    calls = f"{view.calls}" + (f"/{lim['calls']}" if lim.get("calls") is not None else "")
    brk = view.usage.breakdown()  # a refused call is counted here, never against the calls limit
    calls += " calls" + (f" ({brk})" if brk else "")
    cost = "" if view.cost_usd is None else f" · ${view.cost_usd:.2f}"
    if lim.get("cost_usd") is not None:
        cost = f" · ${view.cost_usd or 0:.2f}/${lim['cost_usd']:.2f}"
    return f"{tok} tok · {calls}{cost}"


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


_HANDLERS = {
    K.MODEL_CALL: _model_call,
    K.AGENT_STEP: AttemptView._step,
    K.ATTEMPT_STARTED: AttemptView._started,
    K.ATTEMPT_RESUMED: AttemptView._resumed,
    K.ATTEMPT_FINISHED: AttemptView._finished,
    K.CLOCK_SOFT: AttemptView._clock,
    K.CLOCK_HARD: AttemptView._clock,
    K.CLOCK_CUTOFF: AttemptView._clock,
    K.CLOCK_GRACE_END: AttemptView._clock,
    K.PHASE_REVEALED: AttemptView._phase,
    K.SUBMISSION_RECEIVED: AttemptView._received,
    K.SUBMISSION_REPLACED: AttemptView._replaced,
    K.SUBMISSION_REFUSED: AttemptView._refused,
    K.SUBMISSION_JUDGED: AttemptView._judged,
    K.FEEDBACK_DELIVERED: AttemptView._feedback,
}


def view_of(events: list[Event], activity_size: int = 200) -> AttemptView:
    """Fold a list of events (e.g. from the store) into a view."""
    view = AttemptView(activity_size=activity_size)
    for ev in events:
        view.apply(ev)
    return view
