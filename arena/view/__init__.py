"""What a screen shows of one attempt, reduced from its events (no Textual here).

``AttemptView.apply(event)`` folds events, in order, into plain fields: the facts from
``attempt.started``, the clock at the latest event, warnings, submissions used of the
budget, scores and trajectory, phases (locked/open, revealed briefings), the feedback
document of each submission exactly as delivered, a ring buffer of activity and the
final status. Live screens and replay feed it the same events; a screen that wants the
clock *between* events passes the live elapsed time to ``fraction``/``stage``.
Warning thresholds and the grace period come from the rule table (``arena.formats``).

Its rooms: ``reducer`` (``AttemptView``, ``view_of``, ``usage_line``) over ``activity``
(the activity lines and their ring).
"""

from arena.view.activity import Activity, ActivityLog
from arena.view.reducer import AttemptView, Phase, usage_line, view_of

__all__ = ["Activity", "ActivityLog", "AttemptView", "Phase", "usage_line", "view_of"]
