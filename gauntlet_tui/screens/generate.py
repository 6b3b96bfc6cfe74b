"""The author's view of a generation (seed 003 stages 1-5, arena/pipeline/generate/job.py)
as it runs: the stage timeline (one row per stage of each job attempt, retries included,
then the stages still to come), each gate's findings as they come, and calibration's
benchmark attempts as live rows (real attempts, the dashboard's table). From here the
author inspects the spec and the package, plays the challenge (``human``) and publishes.
What a gate finds and where a retry goes is the job's; this screen only shows it."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Markdown, RichLog, Static

from gauntlet_tui import keys
from gauntlet_tui.generation import Generation, StageRow
from gauntlet_tui.screens.host import host, may_act
from gauntlet_tui.text import esc as escape
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.footer import GauntletFooter

STATUS = {
    "running": "accent",
    "ok": "success",
    "rejected": "error",
    "timeout": "error",
    "error": "error",
    "pending": "foreground-muted",
    "retry": "warning",
    "escalated": "error",
}
SEVERITY = {"error": "error", "warning": "warning"}


def counts(row: StageRow) -> str:
    """The Gate cell: how many findings of each severity the stage's gate reported."""
    if row.status == "running":
        return ""
    n = {s: sum(f.get("severity") == s for f in row.findings) for s in ("error", "warning", "info")}
    return f"{n['error']} err · {n['warning']} warn · {n['info']} info"


def seconds(s: float) -> str:
    return f"{s:.2f}s" if s < 10 else f"{s:.0f}s"


class GenerateScreen(Screen):
    DEFAULT_CSS = """
    GenerateScreen #gen-title { height: auto; padding: 0 1; background: $panel; }
    GenerateScreen #gen-top { height: 1fr; }
    GenerateScreen #gen-timeline { width: 82; max-width: 60%; border: round $panel; }
    GenerateScreen #gen-findings { width: 1fr; border: round $panel; }
    GenerateScreen #gen-bench-title { height: 1; padding: 0 1; color: $text-muted; }
    GenerateScreen #gen-bench { height: 10; border: round $panel; }
    GenerateScreen #gen-next { height: auto; padding: 0 1; }
    """
    BINDINGS = [keys.BACK, keys.SPEC, keys.PACKAGE, keys.PLAY, keys.PUBLISH]

    def __init__(self, gen: Generation) -> None:
        super().__init__(name="generate")
        self.gen = gen
        self._shown_rows: list[tuple] = []
        self._findings_seen = 0
        self._clocked: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Static("", id="gen-title")
        with Horizontal(id="gen-top"):
            yield DataTable(id="gen-timeline", cursor_type="row", zebra_stripes=True)
            yield RichLog(id="gen-findings", wrap=True, markup=True, auto_scroll=True, min_width=20)
        yield Static("calibration's benchmark attempts (real attempts, live)", id="gen-bench-title")
        yield AttemptTable(self._bench_row, id="gen-bench")
        yield Static("", id="gen-next")
        yield GauntletFooter()

    def on_mount(self) -> None:
        table = self.query_one("#gen-timeline", DataTable)
        table.add_columns("Try", "Seed", "Stage", "Status", "Time", "Gate")
        self.query_one("#gen-findings", RichLog).write("[b]findings[/] (as each gate reports them)")
        self.refresh_view()

    def _bench_row(self, attempt: str) -> tuple | None:
        view = self.gen.adapter.views.get(attempt)
        return None if view is None else (view, self.gen.adapter.elapsed(attempt), None)

    # -- the app's refresh timer (a few Hz) ---------------------------------------------
    def refresh_view(self) -> None:
        if not self.gen.flush() and self._shown_rows:
            return
        self._timeline()
        log = self.query_one("#gen-findings", RichLog)
        for row, f in self.gen.findings[self._findings_seen :]:
            sev = str(f.get("severity", "info"))
            line = Text.assemble(
                (f"try {row.attempt} {row.stage} ", self._colour("foreground-muted")),
                (sev, self._colour(SEVERITY.get(sev, "foreground-muted"))),
                f" {f.get('check', '')}: {f.get('detail', '')}",
            )
            log.write(line)
        self._findings_seen = len(self.gen.findings)
        ad = self.gen.adapter
        self.query_one("#gen-bench", AttemptTable).sync(ad.order)
        if not ad.order:
            none = "none: this job stops before gate 3" if self.gen.req.until in ("spec", "package") else "none yet"
            self.query_one("#gen-bench-title", Static).update(f"calibration's benchmark attempts: {none}")
        else:
            for a in ad.order:  # their clocks move between events, at their time scale
                if a not in self._clocked:
                    self._clocked.add(a)
                    ad.follow_clock(a, float(getattr(ad.views[a], "time_scale", None) or 1.0))
            live = sum(not ad.views[a].finished for a in ad.order)
            tries = [self.gen.try_of.get(a) for a in ad.order]
            per = " · ".join(f"try {t}: {tries.count(t)}" for t in sorted({t for t in tries if t is not None}))
            self.query_one("#gen-bench-title", Static).update(
                f"calibration's benchmark attempts (real attempts, live): {len(ad.order)} · {live} running ({per})"
            )
        self._title()

    def _colour(self, var: str) -> str:
        return self.app.theme_variables.get(var, "")

    def _timeline(self) -> None:
        rows: list[tuple[str, ...]] = []
        for r in self.gen.rows:
            time_s = seconds(r.elapsed_s) if r.status != "running" else "…"
            rows.append((str(r.attempt), str(r.seed), r.stage, r.status, time_s, counts(r)))
            last = [x for x in self.gen.rows if x.attempt == r.attempt][-1]
            done = next((a for a in self.gen.attempts if a.attempt == r.attempt and a.result), None)
            final = self.gen.outcome is not None and r.attempt == self.gen.attempts[-1].attempt
            if r is last and done is not None and done.retry_stage is not None:
                if final:  # no attempt follows: the job ended (escalated after its last one)
                    rows.append(("", "", "⚑ end", "escalated", "", done.result or ""))
                else:
                    rows.append(("", "", "↺ retry", f"stage {done.retry_stage}", "", done.result or ""))
        rows += [("", "", s, "pending", "", "") for s in self.gen.pending_stages()]
        if rows == self._shown_rows:
            return
        self._shown_rows = rows
        table = self.query_one("#gen-timeline", DataTable)
        table.clear()
        for a, seed, stage, status, time_s, gate in rows:
            colour = self._colour(STATUS.get("retry" if stage == "↺ retry" else status, "foreground"))
            table.add_row(a, seed, stage, Text(status, style=colour), time_s, gate)

    def _title(self) -> None:
        g, req = self.gen, self.gen.req
        state = (
            "[$accent]running[/]"
            if g.outcome is None
            else ("[$success]passed[/]" if g.passed else f"[$error]{escape(g.outcome)}[/]")
        )
        self.query_one("#gen-title", Static).update(
            f"[b]Generating[/] {escape(req.category)} · class {req.weight_class} · seed {req.seed} · "
            f"until {req.until} · {state}\n[$text-muted]{escape(str(req.out))}[/]"
        )
        nxt = ""
        if g.outcome is not None:
            have_pkg = g.has_package
            nxt = (
                "[b]s[/] spec · " + ("[b]i[/] package · [b]h[/] play it yourself · " if have_pkg else "")
                + ("[b]P[/] publish (gates 1-5) · " if g.passed and req.until != "publish" else "")
                + ("the diagnostic report: report.json" if g.report else "")
                + (f"\n[$error]{escape(g.error)}[/]" if g.error else "")
            )  # fmt: skip
        self.query_one("#gen-next", Static).update(nxt)

    # -- keys -------------------------------------------------------------------------
    def action_spec(self) -> None:
        if not self.gen.spec.is_file():
            self.notify("no spec yet", severity="warning")
            return
        text = self.gen.spec.read_text(encoding="utf-8")
        self.app.push_screen(InspectScreen(f"spec · {self.gen.spec}", f"```yaml\n{text}\n```"))

    def action_package(self) -> None:
        from gauntlet_tui.screens.package_view import describe, render_findings

        pkg = self.gen.package
        if not self.gen.has_package:
            self.notify("no package yet", severity="warning")
            return
        summary, findings, challenge = describe(pkg)
        files = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*") if p.is_file())
        body = "\n".join(f"- `{f}`" for f in files)
        brief = challenge.briefing if challenge is not None else ""
        self.app.push_screen(
            InspectScreen(
                f"package · {pkg}",
                f"## files ({len(files)})\n\n{body}\n\n## briefing\n\n{brief}",
                header=summary + "\n" + render_findings(findings),
            )  # fmt: skip
        )

    @work(exclusive=True, group="play")
    async def action_play(self) -> None:
        from gauntlet_tui.screens.start import StartScreen

        pkg = self.gen.package
        if self.gen.outcome is None or not self.gen.has_package:
            self.notify("the package is not ready yet", severity="warning")
            return
        if not may_act(self, "start an attempt"):
            return
        agents = ["human", *(f"scripted:{p.stem}" for p in sorted(pkg.joinpath("agents").glob("*.yaml")))]
        choice = await self.app.push_screen_wait(StartScreen(pkg.name, agents))
        if choice:
            attempt = await host(self).start_live_attempt(pkg, **choice)
            if attempt is not None:
                host(self).open_attempt_screen(attempt, wait_for_events=True)

    @work(exclusive=True, group="publish")
    async def action_publish(self) -> None:
        from gauntlet_tui.screens.confirm import ConfirmScreen

        g = self.gen
        if not may_act(self, "publish"):
            return
        if g.running or g.outcome is None:
            self.notify("the job is still running", severity="warning")
            return
        if g.req.until == "publish" and g.passed:
            self.notify("already published", timeout=4)
            return
        if not g.passed:
            self.notify("only a package that passed its gates can be published", severity="error")
            return
        ok = await self.app.push_screen_wait(
            ConfirmScreen(
                f"Publish: run the job again through gate 5 (seed {g.req.seed}: the same spec and package)?\n"
                "Calibration runs the benchmark agents: minutes, not seconds."
            )
        )
        if ok:
            start_generation(self, {**vars(g.req), "until": "publish"}, replace=True)


class InspectScreen(Screen):
    """A generated spec or package, read-only."""

    DEFAULT_CSS = """
    InspectScreen #inspect-title { height: 1; padding: 0 1; background: $panel; }
    InspectScreen #inspect-header { height: auto; padding: 0 1; }
    """
    BINDINGS = [keys.BACK]

    def __init__(self, title: str, markdown: str, *, header: str = "") -> None:
        super().__init__(name="inspect")
        self.title_text, self.markdown, self.header = title, markdown, header

    def compose(self) -> ComposeResult:
        yield Static(f"[b]{escape(self.title_text)}[/]", id="inspect-title")
        with VerticalScroll():
            with Vertical():
                yield Static(self.header, id="inspect-header")
                yield Markdown(self.markdown, id="inspect-body")
        yield GauntletFooter()


def start_generation(node: Screen, choice: dict, *, replace: bool = False) -> Generation | None:
    """Start a job for a form's ``choice`` (or a finished job's request) and show it."""
    from arena.pipeline.generate.job import Request
    from arena.paths import data_dir, store_path

    app = node.app
    store = getattr(app, "store_path", None) or store_path(None)
    fields = {k: v for k, v in choice.items() if k in Request.__dataclass_fields__}
    if "out" not in fields:
        name = f"{fields['category']}-wc{fields['weight_class']}-seed{fields['seed']}"
        fields["out"] = data_dir(Path(store)) / "generated" / name
    fields.setdefault("store", Path(store))
    factory = getattr(app, "generation_factory", None)  # tests: a stand-in job at the seam
    gen = Generation(Request(**fields), **({"job_factory": factory} if factory else {}))
    gen.start()
    getattr(app, "generations", []).append(gen)
    if replace and app.screen is node:
        app.switch_screen(GenerateScreen(gen))
    else:
        app.push_screen(GenerateScreen(gen))
    return gen
