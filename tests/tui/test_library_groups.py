"""The library grouped by seed 000's categories (issue 39 item 6): one header per category
that has challenges, each bundled package under its manifest's category, headers never
selectable; a given package of another category gets its own group."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import yaml
from textual.widgets import ListView

from arena.challenge import bundled_challenges
from arena.formats import CATEGORIES
from gauntlet_tui.app import GauntletApp

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def _given(tmp_path: Path) -> Path:
    """A copy of off-by-one recategorised as a constraint maze: a group of its own."""
    dst = tmp_path / "maze-copy"
    shutil.copytree(bundled_challenges()[0], dst, symlinks=True)
    m = yaml.safe_load((dst / "challenge.yaml").read_text())
    m["category"], m["id"] = "constraint-maze", "maze-copy"
    (dst / "challenge.yaml").write_text(yaml.safe_dump(m, sort_keys=False))
    return dst


def _lines(lv: ListView) -> list[tuple[bool, str]]:
    return [(item.disabled, str(item.query_one("Static").render())) for item in lv.children]


async def test_library_groups_challenges_under_their_category(tmp_path):
    given = _given(tmp_path)
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False, library_dirs=[given])
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.press("l")
        await pilot.pause()
        screen = app.screen
        lines = _lines(screen.query_one(ListView))
        headers = [text for disabled, text in lines if disabled]
        # Every manifest's category is a header, in seed 000's order, with its count.
        cats = {}
        for p in [*bundled_challenges(), given]:
            c = yaml.safe_load((p / "challenge.yaml").read_text())["category"]
            cats[c] = cats.get(c, 0) + 1
        expected = [f"{c} ({cats[c]})" for c in CATEGORIES if c in cats]
        assert headers == expected
        # Each challenge sits under its own category's header.
        current = None
        for disabled, text in lines:
            if disabled:
                current = text.rsplit(" (", 1)[0]
                continue
            name = text.split()[0]
            pkg = given if name == "maze-copy" else next(p for p in bundled_challenges() if p.name == name)
            assert yaml.safe_load((pkg / "challenge.yaml").read_text())["category"] == current, text
        assert "sprint · lightweight" in next(t for d, t in lines if t.strip().startswith("off-by-one"))
        # Walking down visits every challenge once and never a header.
        seen = [screen.current]
        for _ in range(len(screen.paths) + 2):
            await pilot.press("down")
            await pilot.pause()
            if screen.current != seen[-1]:
                seen.append(screen.current)
        assert seen == [p for p in screen.rows if p is not None]
        assert given.resolve() in {p.resolve() for p in seen}
        if os.environ.get("GAUNTLET_SHOTS"):  # docs/screenshots/library-groups.svg, on demand
            await pilot.press(*["up"] * len(screen.paths))
            await pilot.pause()
            app.save_screenshot("library-groups.svg", str(SHOTS))
