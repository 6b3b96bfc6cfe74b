"""arena.scoring: pure functions from stored events to scores (CONTRACT §6).

- ``submission_score(result, deliverables, phase)`` — the 0-100 objective of one submission.
- ``score_preview(events_so_far)`` — the Standard 4th-submission preview.
- ``judge_attempt(events) -> Scorecard`` — the four judges and the composite.
"""

from arena.scoring.objective import submission_score
from arena.scoring.scorecard import Scorecard, judge_attempt, score_preview

__all__ = ["Scorecard", "judge_attempt", "score_preview", "submission_score"]
