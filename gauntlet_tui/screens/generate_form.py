"""Ask what to generate: category, weight class, format, seed, how far to go and the
sandbox. Dismisses with ``{"category", "weight_class", "fmt", "seed", "until",
"sandbox", "quick"}`` or None. Which templates serve a choice is the Architect's answer
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
    ("calibrate: gate 3 too (minutes: real benchmark attempts)", "calibrate"),
    ("audit: gates 1-4", "audit"),
    ("publish: gates 1-5, into this store", "publish"),
]


class GenerateForm(ModalScreen[dict | None]):
    DEFAULT_CSS = """
    GenerateForm { align: center middle; }
    GenerateForm > Vertical { width: 72; max-width: 95%; height: auto; max-height: 100%; overflow-y: auto; border: thick $primary; background: $surface; padding: 0 2; }
    GenerateForm Label { margin-top: 0; color: $text-muted; }
    GenerateForm #gen-error { color: $error; height: auto; }
    GenerateForm Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
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
        with Vertical():
            yield Static("[b]Generate a challenge[/] (seed 003: architect → builder → gates)")
            yield Label("Category")
            first = "debugging" if "debugging" in self.categories else self.categories[0]
            yield Select([(c, c) for c in self.categories], value=first, allow_blank=False, id="gen-category")
            yield Label("Weight class")
            yield Select(
                [(f"{i} {n}", i) for i, n in enumerate(self.weight_classes, 1)],
                value=2,
                allow_blank=False,
                id="gen-class",
            )
            yield Label("Format")
            yield Select(
                [
                    ("the template's first", "any"),
                    ("sprint", "sprint"),
                    ("standard", "standard"),
                    ("marathon", "marathon"),
                ],
                value="any",
                allow_blank=False,
                id="gen-format",
            )
            yield Label("Seed (the same seed gives the same spec, byte for byte)")
            yield Input(str(secrets.randbelow(10_000)), id="gen-seed")
            yield Label("Run until")
            yield Select(UNTIL, value="package", allow_blank=False, id="gen-until")
            yield Label("Sandbox (starter check, calibration)")
            yield Select(
                [("auto (Docker if it answers, else local)", "auto"), ("docker", "docker"), ("local", "local")],
                value="auto",
                allow_blank=False,
                id="gen-sandbox",
            )
            yield Checkbox("quick calibration: one run per agent, no flakiness repeats", id="gen-quick")
            yield Static("", id="gen-error")
            with Horizontal():
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
            }
        )
