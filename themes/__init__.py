"""Gauntlet's Textual themes: ``gauntlet-dark`` (default), ``gauntlet-light`` and
``gauntlet-projector`` (high contrast for a room: solid backgrounds, opaque text, bold
state changes; the attempt view shows its clock in large ``Digits`` under it).

Widgets never use colour literals: they read these themes' variables (``$warning``,
``$error``, ``$success``, ``$primary``...) and the extra ``gauntlet-*`` variables below.
"""

from __future__ import annotations

from textual.theme import Theme

DEFAULT_THEME = "gauntlet-dark"
PROJECTOR_THEME = "gauntlet-projector"

GAUNTLET_DARK = Theme(
    name="gauntlet-dark",
    primary="#4FA3E0",
    secondary="#8A7FD6",
    accent="#E0A84F",
    warning="#E8B341",
    error="#E5534B",
    success="#57AB5A",
    foreground="#D8DEE4",
    background="#14181E",
    surface="#1C2129",
    panel="#262C36",
    dark=True,
    variables={
        "gauntlet-locked": "#6E7681",
        "footer-key-foreground": "#4FA3E0",
    },
)

GAUNTLET_LIGHT = Theme(
    name="gauntlet-light",
    primary="#0A5FA8",
    secondary="#5B4BB7",
    accent="#A8620A",
    warning="#9A6700",
    error="#C4302B",
    success="#1F7A34",
    foreground="#1F2328",
    background="#F6F8FA",
    surface="#FFFFFF",
    panel="#E4E8EE",
    dark=False,
    variables={
        "gauntlet-locked": "#8C959F",
        "footer-key-foreground": "#0A5FA8",
    },
)

GAUNTLET_PROJECTOR = Theme(
    name="gauntlet-projector",
    primary="#00B7FF",
    secondary="#FFFFFF",
    accent="#FFD400",
    warning="#FFD400",
    error="#FF3B30",
    success="#00E676",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    boost="#000000",
    dark=True,
    luminosity_spread=0.0,
    text_alpha=1.0,
    variables={
        "gauntlet-locked": "#B0B0B0",
        "footer-key-foreground": "#FFD400",
        "block-cursor-text-style": "bold",
    },
)

THEMES: tuple[Theme, ...] = (GAUNTLET_DARK, GAUNTLET_LIGHT, GAUNTLET_PROJECTOR)

# Values of our extra variables under themes that do not define them (Textual's own).
VARIABLE_DEFAULTS: dict[str, str] = {"gauntlet-locked": "#808080"}
THEME_NAMES: tuple[str, ...] = tuple(t.name for t in THEMES)


def register_all(app) -> None:  # noqa: ANN001 — a textual App
    for theme in THEMES:
        app.register_theme(theme)
