"""Gauntlet's widgets, one per module."""

from gauntlet_tui.widgets.activity import ActivityStream
from gauntlet_tui.widgets.attempt_table import AttemptTable
from gauntlet_tui.widgets.clock import AttemptClock
from gauntlet_tui.widgets.feedback_pane import FeedbackPane
from gauntlet_tui.widgets.phase_timeline import PhaseTimeline
from gauntlet_tui.widgets.trajectory import Trajectory

__all__ = ["ActivityStream", "AttemptTable", "AttemptClock", "FeedbackPane", "PhaseTimeline", "Trajectory"]
