"""The ratings tables of the leaderboard and the Standings screen: the one list (every ranked
class, one pairwise fit, rank bands where intervals overlap: ``overall_widgets``) and one table per
weight class, rows as ``arena.scoring`` ordered them (``Leaderboard.class_tables()``: the
pairwise rating with its 95% interval, then the agents with no opponent there, unrated with
their mean total; frontier shown, never ranked). Presentation only: no rating rule here."""

from __future__ import annotations

from typing import Any, Literal

from rich.text import Text
from textual.widgets import DataTable, Static

COLUMNS = (
    ("rank", "#"),
    ("agent", "Agent"),
    ("rating", "Rating"),
    ("interval", "95% interval"),
    ("games", "Games"),
    ("attempts", "Attempts"),
    ("mean_total", "Mean"),
    ("elo", "Bracket Elo"),
    ("note", "Note"),
)

ELO_NOTE = (
    "Rating: pairwise, against the other agents of the class on the same challenges (games); "
    "Mean: mean total of the agent's attempts there. Bracket Elo is within the bracket of that "
    "class (promotion and relegation); it does not order. unverified calibration (n): n of those "
    "attempts ran under a publication whose calibration was not verified."
)


def class_heading(table: dict[str, Any]) -> str:
    how = "ranked by pairwise rating" if table["ranked"] else "not ranked (seed 002: frontier is a benchmark)"
    return f"{table['weight_class']} (×{table['multiplier']:g}): {how}"


def rank_cell(row: dict[str, Any]) -> str:
    """The rank band (``"1-3"`` where intervals overlap: ties shown as ties), ``-`` unrated."""
    return str(row.get("rank_band") or "-")


def rating_cell(row: dict[str, Any], ranked: bool = True) -> str:
    if not ranked:
        return "not ranked"
    return "unrated" if row["rating"] is None else f"{row['rating']:.0f}"


def interval_cell(row: dict[str, Any], ranked: bool = True) -> str:
    """Two-sided ``low–high``; after a sweep one-sided (``≥ low`` or ``≤ high``), said so."""
    if not ranked:
        return "—"
    if row["rating"] is None:
        return "no opponent"
    if row.get("one_sided") == "lower":
        return f"≥ {row['low']:.0f} (one-sided)"
    if row.get("one_sided") == "upper":
        return f"≤ {row['high']:.0f} (one-sided)"
    return f"{row['low']:.0f}–{row['high']:.0f}"


def note_cell(row: dict[str, Any], cls: str | None = None) -> str:
    """What else the row must say: attempts under an unverified publication, the class the
    agent competes in when it is not this table's, a relegation review."""
    notes = []
    n = int(row.get("unverified_attempts") or 0)
    if n:
        notes.append(f"unverified calibration ({n})")
    if cls is not None and row.get("weight_class") and row["weight_class"] != cls:
        notes.append(f"competes in {row['weight_class']}")
    if row.get("under_review"):
        notes.append("under review")
    return "; ".join(notes)


def cells(row: dict[str, Any], ranked: bool = True, cls: str | None = None) -> list[str | Text]:
    """The row's cells (``cls``: the table's class); the agent's name as plain text (a name
    is data, never markup)."""
    return [
        rank_cell(row),
        Text(str(row["agent"])),
        rating_cell(row, ranked),
        interval_cell(row, ranked),
        str(row["games"]),
        str(row["attempts"]),
        f"{row['mean_total']:.1f}",
        f"{row['elo']:.0f}",
        note_cell(row, cls),
    ]


def class_table(
    table: dict[str, Any], *, id: str, cursor_type: Literal["cell", "row", "column", "none"] = "row"
) -> DataTable:
    out: DataTable = DataTable(cursor_type=cursor_type, zebra_stripes=True, id=id, classes="ratings-table")
    for key, label in COLUMNS:
        out.add_column(label, key=key)
    for row in table["agents"]:
        out.add_row(*cells(row, table["ranked"], table["weight_class"]), key=row["agent"])
    return out


OVERALL_HEADING = (
    "Overall: one pairwise rating over every head-to-head on the same challenge, across the ranked "
    "classes (class multipliers decide promotion, not order); agents whose 95% intervals overlap "
    "share a rank band (1-3)"
)
OVERALL_COLUMNS = (
    ("rank", "#"),
    ("agent", "Agent"),
    ("rating", "Rating"),
    ("interval", "95% interval"),
    ("games", "Games"),
    ("mean_total", "Mean"),
    ("class", "Class"),
    ("note", "Note"),
)


def overall_cells(row: dict[str, Any]) -> list[str | Text]:
    """A row of the one list (``Leaderboard.agent_rows()``)."""
    mean = row.get("ranked_mean_total")
    return [
        rank_cell(row),
        Text(str(row["agent"])),
        rating_cell(row),
        interval_cell(row),
        str(row.get("rating_games") or 0),
        "-" if mean is None else f"{mean:.1f}",
        str(row.get("weight_class") or ""),
        note_cell(row),
    ]


def overall_widgets(rows: list[dict[str, Any]], prefix: str) -> list[Static | DataTable]:
    """Heading and table of the one list, id ``{prefix}-overall``; none without rows."""
    if not rows:
        return []
    table: DataTable = DataTable(cursor_type="row", zebra_stripes=True, id=f"{prefix}-overall", classes="ratings-table")
    for key, label in OVERALL_COLUMNS:
        table.add_column(label, key=key)
    for row in rows:
        table.add_row(*overall_cells(row), key=row["agent"])
    return [Static(OVERALL_HEADING, classes="ratings-overall"), table]


def class_widgets(classes: list[dict[str, Any]], prefix: str) -> list[Static | DataTable]:
    """Heading and table per weight class, ids ``{prefix}-{class}``."""
    out: list[Static | DataTable] = []
    for t in classes:
        out.append(Static(class_heading(t), classes="ratings-class"))
        out.append(class_table(t, id=f"{prefix}-{t['weight_class']}"))
    return out
