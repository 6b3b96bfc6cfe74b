"""An attempt's model usage (CONTRACT §8), summed from its ``model.call`` events:
``{"tokens", "calls", "cost_usd"}``. ``cost_usd`` is None when no call had a known price
(never a made-up cost); tokens a call's upstream did not report count as 0."""

from __future__ import annotations

from typing import Iterable

from arena import events as ev


def usage_from_events(events: Iterable[ev.Event]) -> dict[str, int | float | None]:
    tokens = calls = 0
    cost: float | None = None
    for e in events:
        if e.kind != ev.MODEL_CALL:
            continue
        d = e.data
        if d.get("status") == 200:
            calls += 1
        tokens += int(d.get("input_tokens") or 0) + int(d.get("output_tokens") or 0)
        if d.get("cost_usd") is not None:
            cost = (cost or 0.0) + float(d["cost_usd"])
    return {"tokens": tokens, "calls": calls, "cost_usd": None if cost is None else round(cost, 6)}
