"""Which attempts a screen shows as "the current heat" (no Textual; docs/INTERFACES.md,
"Fourth wave"). A heat is one run: every ``gauntlet run`` / ``gauntlet arena`` creates one,
and ``attempt.started`` carries its id as ``heat``.

- A command that runs a heat of its own (``own``: arena, run, demo) shows that heat: the
  attempts whose ``heat`` is its run id, and the attempts it runs itself (``local``: the
  ones started or resumed in this process, before the run id is known too).
- A screen that only follows the store (``gauntlet``, ``gauntlet serve``) shows the store's
  newest heat (``heat``: the run of the attempt started last), and the attempts this
  process started from it; when that heat is unknown (attempts stored before heats), the
  whole store is the current heat, as before.

Every other attempt is *older*: a key away on the dashboard, never mixed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from arena.view import AttemptView


def in_heat(view: "AttemptView | None", *, heat: str | None, own: bool, local: bool) -> bool:
    """Whether an attempt (its ``AttemptView``) belongs to the current heat."""
    if local:
        return True
    if heat:
        return bool(view is not None and view.heat == heat)
    return not own


def split(
    order: Iterable[str],
    views: Mapping[str, "AttemptView"],
    *,
    heat: str | None,
    own: bool,
    is_local: Callable[[str], bool],
) -> tuple[list[str], list[str]]:
    """``(this heat's attempts, older attempts)``, each in ``order``."""
    mine: list[str] = []
    older: list[str] = []
    for attempt in order:
        view = views.get(attempt)
        (mine if in_heat(view, heat=heat, own=own, local=is_local(attempt)) else older).append(attempt)
    return mine, older
