"""Ask what to generate: category, weight class, format, seed, how far to go and the
sandbox. Dismisses with ``{"category", "weight_class", "fmt", "seed", "until",
"sandbox", "quick", "builder"}`` or None. Which templates serve a choice is the Architect's answer
(``arena.pipeline.generate.architect.candidates``); the screen only reports it."""

from __future__ import annotations

import secrets

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from gauntlet_tui.text import esc as escape

UNTIL = [
    ("package: stages 1-2 (seconds)", "package"),
    ("calibrate: gate 3 too (minutes)", "calibrate"),
    ("audit: gates 1-4", "audit"),
    ("publish: gates 1-5, into this store", "publish"),
]


class GenerateForm(ModalScreen[dict | None]):
    DEFAULT_CSS = """
    GenerateForm { align: center middle; }
    GenerateForm > Vertical { width: 100; max-width: 95%; height: auto; max-height: 100%; overflow-y: auto; border: thick $primary; background: $surface; padding: 0 2; }
    GenerateForm Label { margin-top: 0; color: $text-muted; }
    GenerateForm #gen-error { color: $error; height: auto; }
    GenerateForm Horizontal { height: auto; }
    GenerateForm .gen-pair Vertical { width: 1fr; height: auto; }
    GenerateForm #gen-buttons { align-horizontal: right; margin-top: 1; }
    GenerateForm Button { margin-left: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="gen-cancel", tooltip="Do not generate")]

    def __init__(self) -> None:
        super().__init__()
        from arena.formats import WEIGHT_CLASSES
        from arena.pipeline.generate.templates import categories, library

        self.templates = library()
        self.categories = categories(self.templates)
        self.weight_classes = list(WEIGHT_CLASSES)

    def compose(self) -> ComposeResult:
        first = "debugging" if "debugging" in self.categories else self.categories[0]
        classes = [(f"{i} {n}", i) for i, n in enumerate(self.weight_classes, 1)]
        formats = [
            ("the template's first", "any"),
            ("sprint", "sprint"),
            ("standard", "standard"),
            ("marathon", "marathon"),
        ]
        sandboxes = [("auto (Docker, else local)", "auto"), ("docker", "docker"), ("local", "local")]
        with Vertical():
            yield Static("[b]Generate a challenge[/] (seed 003: architect → builder → gates)")
            with Horizontal(classes="gen-pair"):
                with Vertical():
                    yield Label("Category")
                    yield Select([(c, c) for c in self.categories], value=first, allow_blank=False, id="gen-category")
                with Vertical():
                    yield Label("Weight class")
                    yield Select(classes, value=2, allow_blank=False, id="gen-class")
            with Horizontal(classes="gen-pair"):
                with Vertical():
                    yield Label("Format")
                    yield Select(formats, value="any", allow_blank=False, id="gen-format")
                with Vertical():
                    yield Label("Seed (same seed, same spec)")
                    yield Input(str(secrets.randbelow(10_000)), id="gen-seed")
            with Horizontal(classes="gen-pair"):
                with Vertical():
                    yield Label("Run until")
                    yield Select(UNTIL, value="package", allow_blank=False, id="gen-until")
                with Vertical():
                    yield Label("Sandbox (starter check, calibration)")
                    yield Select(sandboxes, value="auto", allow_blank=False, id="gen-sandbox")
            yield Label("Builder (empty: the offline builder · NAME@PROVIDER/MODEL · an agent file)")
            yield Input("", placeholder="offline", id="gen-builder")
            yield Checkbox("quick calibration: one run per agent, no flakiness repeats", id="gen-quick")
            yield Static("", id="gen-error")
            with Horizontal(id="gen-buttons"):
                yield Button("Generate", variant="primary", id="gen-go")
                yield Button("Cancel", id="gen-cancel")

    @on(Button.Pressed, "#gen-cancel")
    def action_cancel(self) -> None:
        if self.is_current:
            self.dismiss(None)

    def _value(self, id: str) -> object:
        return self.query_one(f"#{id}", Select).value

    @on(Button.Pressed, "#gen-go")
    @on(Input.Submitted, "#gen-seed")
    def _go(self) -> None:
        from arena.pipeline.generate.architect import candidates

        err = self.query_one("#gen-error", Static)
        raw = self.query_one("#gen-seed", Input).value.strip()
        try:
            seed = int(raw)
            if seed < 0:
                raise ValueError
        except ValueError:
            err.update(f"seed: expected a whole number ≥ 0, got {escape(raw)!r}")
            return
        category, wc = str(self._value("gen-category")), int(str(self._value("gen-class")))
        fmt = None if self._value("gen-format") == "any" else str(self._value("gen-format"))
        if not candidates(self.templates, category, wc, fmt):
            err.update(
                f"no {escape(category)} template serves class {wc} {escape(self.weight_classes[wc - 1])}"
                f" in format {escape(fmt or 'any')}: choose another class or format"
            )
            return
        builder = self.query_one("#gen-builder", Input).value.strip() or None
        if builder is not None:
            from pathlib import Path

            from arena.agents.agent_file import adapter_names, from_spec

            try:
                known = from_spec(builder) is not None or Path(builder).is_file()
            except Exception as exc:  # noqa: BLE001 — a bad model name etc.: said in the form
                err.update(f"builder: {escape(str(exc))}")
                return
            if not known:
                err.update(
                    f"builder: {escape(builder)!r} is neither a built-in adapter ({escape(', '.join(adapter_names()))},"
                    " as NAME@PROVIDER/MODEL) nor an agent file"
                )
                return
        sandbox = self._value("gen-sandbox")
        self.dismiss(
            {
                "category": category,
                "weight_class": wc,
                "fmt": fmt,
                "seed": seed,
                "until": str(self._value("gen-until")),
                "sandbox": None if sandbox == "auto" else str(sandbox),
                "quick": self.query_one("#gen-quick", Checkbox).value,
                "builder": builder,
            }
        )
