"""Tiny inline-SVG plots for reports (no JavaScript, no external assets)."""

from __future__ import annotations

import math
from html import escape

W, H = 560, 256
PAD_L, PAD_R, PAD_T, PAD_B = 48, 16, 46, 40


def _frame(title: str, y_max: float, y_label: str, ticks: int = 4) -> list[str]:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}">',
        f'<rect x="0" y="0" width="{W}" height="{H}" fill="#ffffff"/>',
        f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14" font-family="sans-serif">{escape(title)}</text>',
    ]
    for i in range(ticks + 1):
        v = y_max * i / ticks
        y = _y(v, y_max)
        out.append(
            f'<line class="grid" x1="{PAD_L}" y1="{y:.1f}" x2="{W - PAD_R}" y2="{y:.1f}" '
            'stroke="#dddddd" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'font-family="sans-serif">{v:g}</text>'
        )
    out.append(
        f'<text x="12" y="{PAD_T + (H - PAD_T - PAD_B) / 2:.1f}" font-size="11" font-family="sans-serif" '
        f'transform="rotate(-90 12 {PAD_T + (H - PAD_T - PAD_B) / 2:.1f})" text-anchor="middle">'
        f"{escape(y_label)}</text>"
    )
    out.append(f'<line x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}" stroke="#333333"/>')
    return out


def _y(v: float, y_max: float) -> float:
    return H - PAD_B - (H - PAD_T - PAD_B) * (v / y_max if y_max else 0)


def _x(i: int, n: int) -> float:
    span = W - PAD_L - PAD_R
    return PAD_L + span * (i + 0.5) / max(n, 1)


def line_plot(values: list[float], labels: list[str], title: str, y_label: str, y_max: float = 100.0) -> str:
    out = _frame(title, y_max, y_label)
    n = len(values)
    pts = [(_x(i, n), _y(v, y_max)) for i, v in enumerate(values)]
    if n >= 2:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        out.append(f'<polyline class="trajectory" points="{path}" fill="none" stroke="#1f6feb" stroke-width="2.5"/>')
    for (x, y), v, lab in zip(pts, values, labels):
        out.append(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="#1f6feb"/>')
        out.append(
            f'<text x="{x:.1f}" y="{y - 9:.1f}" text-anchor="middle" font-size="11" '
            f'font-family="sans-serif">{v:g}</text>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{H - PAD_B + 16}" text-anchor="middle" font-size="11" '
            f'font-family="sans-serif">{escape(lab)}</text>'
        )
    if n == 0:
        out.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" font-size="12">no scored submission</text>')
    out.append("</svg>")
    return "\n".join(out)


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is ≥ x (axis tops with round ticks)."""
    if x <= 0:
        return 1.0
    k = 10 ** math.floor(math.log10(x))
    return next(m * k for m in (1, 2, 2.5, 5, 10) if m * k >= x)


def bar_plot(values: list[float], labels: list[str], title: str, y_label: str) -> str:
    y_max = nice_ceiling(max(values) * 1.1) if values else 1.0
    out = _frame(title, y_max, y_label)
    n = len(values)
    bw = (W - PAD_L - PAD_R) / max(n, 1) * 0.6
    for i, (v, lab) in enumerate(zip(values, labels)):
        x, y = _x(i, n), _y(v, y_max)
        out.append(
            f'<rect class="bar" x="{x - bw / 2:.1f}" y="{y:.1f}" width="{bw:.1f}" '
            f'height="{H - PAD_B - y:.1f}" fill="#2da44e"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{y - 5:.1f}" text-anchor="middle" font-size="11" '
            f'font-family="sans-serif">{v:.0f}s</text>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{H - PAD_B + 16}" text-anchor="middle" font-size="11" '
            f'font-family="sans-serif">{escape(lab)}</text>'
        )
    if n == 0:
        out.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" font-size="12">no iterations</text>')
    out.append("</svg>")
    return "\n".join(out)


def ascii_bars(
    values: list[float], labels: list[str], unit: str = "", width: int = 40, y_max: float | None = None
) -> str:
    """The Markdown report's plots: one bar per value in a code block."""
    top = y_max or (max(values) if values else 1.0) or 1.0
    lw = max((len(s) for s in labels), default=1)
    lines = [f"{lab.ljust(lw)} | {'█' * round(width * v / top)} {v:g}{unit}" for v, lab in zip(values, labels)]
    return "```\n" + ("\n".join(lines) or "(none)") + "\n```"
