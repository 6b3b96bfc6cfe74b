"""Two stored attempts side by side (CONTRACT §11, ``gauntlet compare A B``): the engine
part, no Textual. ``compare(store, a, b)`` builds a ``Comparison``; ``render`` turns it
into plain text, Markdown or HTML; the TUI's compare screen shows the same object."""

from arena.compare.build import Comparison, Side, compare
from arena.compare.diff import SubmissionDiff
from arena.compare.timeline import Line, Row

__all__ = ["Comparison", "Line", "Row", "Side", "SubmissionDiff", "compare"]
