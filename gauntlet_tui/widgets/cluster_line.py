"""The dashboard's cluster line: the Ray cluster's nodes and their used and free
``gauntlet_slot``s, from a plain ``arena.cluster.status.ClusterSnapshot`` (or anything
of its shape: ``address``, ``nodes`` with ``host``/``alive``/``total``/``free``/``used``/
``head``, ``alive``, ``lost``, ``cluster_free``, ``error``). No Ray here.

    cluster ray://10.0.0.2:10001 · 4 slots: 3 used, 1 free │ w1 ●● 2 used 0 free │ w2 ●○ 1 used 1 free │ head: no slots

● a used slot, ○ a free one (numbers only past ``DOTS`` slots); ``?`` when a node's free
count could not be read.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from gauntlet_tui.text import esc

DOTS = 8


def _node(n: Any) -> str:
    name = f"[b]{esc(n.host)}[/]"
    if not n.total:
        return f"{name}: no slots"
    if n.free is None:
        return f"{name} {n.total} slots, free ?"
    used, free = n.used, n.free
    dots = ("[$warning]" + "●" * used + "[/]" + "○" * free) if n.total <= DOTS else ""
    return f"{name} {dots} {used} used {free} free".replace("  ", " ")


def cluster_text(snap: Any) -> str:
    head = f"[b]cluster[/] {esc(snap.address)}"
    if snap.error and not snap.nodes:
        return f"{head} · [$error]unreachable: {esc(snap.error)}[/]"
    alive = list(snap.alive)
    total = sum(n.total for n in alive)
    known = [n for n in alive if n.free is not None]
    if len(known) == len(alive):
        free = sum(n.free for n in known)
    else:
        free = snap.cluster_free if snap.cluster_free is not None else None
    summary = f"{total} slots: {total - free} used, {free} free" if free is not None else f"{total} slots"
    parts = [f"{head} · {len(alive)} node{'s' if len(alive) != 1 else ''} · {summary}"]
    parts += [_node(n) for n in alive]
    lost = list(snap.lost)
    if lost:
        parts.append(f"[$error]lost: {esc(', '.join(n.host for n in lost))}[/]")
    if snap.error:
        parts.append(f"[$error]{esc(snap.error)}[/]")
    return " │ ".join(parts)


class ClusterLine(Static):
    """One line, hidden until a snapshot comes; redrawn only when its text changes."""

    DEFAULT_CSS = """
    ClusterLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; display: none; }
    ClusterLine.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.text = ""

    def show(self, snap: Any) -> None:
        if snap is None:
            return
        text = cluster_text(snap)
        if text != self.text:
            self.text = text
            self.update(text, layout=False)
        self.add_class("-shown")
