"""Seed 002's calibration bands per weight class: the one table that gate 3 (calibration.py),
the misclassification check (misclass.py) and publish read."""

from __future__ import annotations

Band = tuple[float, float]
# Seed 002 "Weight Class Validation" -> "Benchmark Agent Calibration": per weight class, the
# inclusive bands of the naive, standard and elite agents and of the spread (elite - naive).
# The one source of truth for gate 3's bands (publish re-checks reports against it).
CLASS_BANDS: dict[str, dict[str, Band]] = {
    "lightweight": {"naive": (60.0, 80.0), "standard": (80.0, 95.0), "elite": (90.0, 100.0), "spread": (20.0, 35.0)},
    "middleweight": {"naive": (25.0, 50.0), "standard": (50.0, 75.0), "elite": (70.0, 90.0), "spread": (35.0, 55.0)},
    "contender": {"naive": (10.0, 30.0), "standard": (35.0, 55.0), "elite": (55.0, 80.0), "spread": (45.0, 65.0)},
    "heavyweight": {"naive": (0.0, 15.0), "standard": (15.0, 40.0), "elite": (40.0, 60.0), "spread": (50.0, 65.0)},
    "frontier": {"naive": (0.0, 5.0), "standard": (5.0, 20.0), "elite": (20.0, 40.0), "spread": (25.0, 40.0)},
}

__all__ = ["CLASS_BANDS", "Band"]
