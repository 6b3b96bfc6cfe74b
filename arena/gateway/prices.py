"""Model prices in US dollars per million tokens, to compute an attempt's cost.

The built-in table is small and WILL go stale: the figures were copied from the providers'
public price pages (openai.com/api/pricing, anthropic.com/pricing) as they stood in 2025,
standard (non-batch, non-cached) rates. Check them before trusting a cost. Users extend or
override them in a YAML file named by ``GAUNTLET_PRICES``, else
``~/.config/gauntlet/prices.yaml`` when it exists::

    openai/my-finetune: {input: 3.0, output: 12.0}     # USD per 1M tokens
    anthropic/claude-sonnet-4-20250514: {input: 3, output: 15}

A model is matched by its exact ``provider/model`` name. A model that is in neither table
has no cost (None), never a guessed one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import yaml

from arena.errors import UsageError


@dataclass(frozen=True)
class Price:
    input: float  # USD per 1M input tokens
    output: float  # USD per 1M output tokens


BUILTIN: dict[str, Price] = {
    "openai/gpt-4o": Price(2.50, 10.00),
    "openai/gpt-4o-mini": Price(0.15, 0.60),
    "openai/gpt-4.1": Price(2.00, 8.00),
    "openai/gpt-4.1-mini": Price(0.40, 1.60),
    "openai/gpt-4.1-nano": Price(0.10, 0.40),
    "openai/o3-mini": Price(1.10, 4.40),
    "openai/o4-mini": Price(1.10, 4.40),
    "anthropic/claude-3-5-haiku-20241022": Price(0.80, 4.00),
    "anthropic/claude-3-7-sonnet-20250219": Price(3.00, 15.00),
    "anthropic/claude-sonnet-4-20250514": Price(3.00, 15.00),
    "anthropic/claude-opus-4-20250514": Price(15.00, 75.00),
}


class PriceTable:
    def __init__(self, prices: Mapping[str, Price] | None = None) -> None:
        self.prices: dict[str, Price] = dict(BUILTIN if prices is None else prices)

    @classmethod
    def load(cls, env: Mapping[str, str] = os.environ) -> "PriceTable":
        """The built-in table extended by the user's file (see the module doc)."""
        table = cls()
        named = env.get("GAUNTLET_PRICES")
        path: Path | None
        if named:
            path = Path(named).expanduser()
            if not path.is_file():
                raise UsageError(f"GAUNTLET_PRICES={named}: no such file")
        else:
            home = env.get("HOME")
            path = Path(home) / ".config/gauntlet/prices.yaml" if home else None
            if path is None or not path.is_file():
                return table
        table.prices.update(read_prices(path))
        return table

    def get(self, model: str) -> Price | None:
        return self.prices.get(model)

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        p = self.prices.get(model)
        if p is None:
            return None
        return (input_tokens * p.input + output_tokens * p.output) / 1_000_000


def read_prices(path: Path) -> dict[str, Price]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML: {exc}".splitlines()[0]) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: expected a mapping of provider/model to {{input: USD, output: USD}}")
    out: dict[str, Price] = {}
    for model, entry in doc.items():
        if not isinstance(model, str) or "/" not in model:
            raise UsageError(f"{path}: key {model!r}: expected provider/model, e.g. openai/gpt-4.1-mini")
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise UsageError(f"{path}: {model}: expected {{input: USD, output: USD}} per million tokens")
        vals = []
        for side in ("input", "output"):
            v = entry[side]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise UsageError(f"{path}: {model}.{side}: expected a number >= 0 (USD per 1M tokens), got {v!r}")
            vals.append(float(v))
        out[model] = Price(*vals)
    return out
