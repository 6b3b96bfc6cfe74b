"""What the app follows of the engine, apart from its screens and chrome: the current heat
and its news (``heat``: which attempts the screens show first, which alerts become toasts)
and the attempts it starts and stops (``runs``)."""

from gauntlet_tui.feeds.heat import HeatFeed
from gauntlet_tui.feeds import runs

__all__ = ["HeatFeed", "runs"]
