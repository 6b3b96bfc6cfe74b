"""The TUI leaderboard and the Standings screen show what ``arena.scoring`` orders by (issue 20
item 3): per weight class the pairwise rating with its interval (one-sided after a sweep, said
so), an agent with no opponent there unrated with its mean total and attempts, frontier never
ranked, Elo a secondary column within the bracket; and the rows of attempts run under a
publication whose calibration was not verified say "unverified calibration". A real store
(judged event logs, tests/scoring/eventkit), a real publication entry (publish's own writer
and records), the real app through its pilot."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from textual.widgets import DataTable

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parents[1] / "scoring"))

from attempt_kit import make_package  # noqa: E402
from eventkit import Attempt  # noqa: E402
from scenarios import iteration  # noqa: E402

from arena.challenge import load_challenge  # noqa: E402
from arena.pipeline.boards import leaderboard  # noqa: E402
from arena.pipeline.publish_records import (  # noqa: E402
    classify,
    hash_entries,
    lifecycle,
    metadata,
    monitors,
    package_files,
    read_entries,
)
from arena.pipeline.published import write_entry  # noqa: E402
from arena.pipeline.sealing import key_id  # noqa: E402
from gauntlet_tui.app import GauntletApp  # noqa: E402
from store import Store  # noqa: E402

KEY = bytes(range(32))
CID = "kit-ratings"


def publish_unverified(store: Path, pkg: Path, when: datetime) -> None:
    """An ``--unverified-calibration`` publication as `challenge publish` writes it."""
    ch = load_challenge(pkg)
    entries = read_entries(pkg, package_files(pkg))
    phash = hash_entries(entries)
    plain, sealed = classify(sorted(entries))
    cal = {
        "scores": {"naive": 60.0, "standard": 85.0, "elite": 95.0, "reference": 99.0},
        "spread": 35.0,
        "confidence": "low",
    }

    def records(version):
        meta = metadata(
            ch,
            version=version,
            now=when,
            run_id="p-test",
            calibration=cal,
            integrity={"verdict": "pass_clean", "flags": []},
            package=phash,
            key=key_id(KEY),
            sealed=sealed,
        )
        meta["calibration_verified"] = False
        life = lifecycle(when)
        return {"metadata": meta, "lifecycle": life, "monitors": monitors(meta, life)}

    write_entry(
        store, ch.id, entries, plain=plain, sealed=sealed, key=KEY, package_hash=phash, records=records, stage="t"
    )


def _attempt(aid, passed, agent, challenge, cls="lightweight"):
    a = Attempt("standard", attempt=aid, agent=agent, challenge=challenge, weight_class=cls)
    iteration(a, passed)
    return a.finish()


async def _fill(path: Path) -> list[str]:
    logs = [_attempt("a-ace00001", 95, "ace", CID)]
    logs += [_attempt(f"a-stdy000{i}", 70, "steady", CID) for i in range(3)]
    logs += [
        _attempt("a-lone0001", 60, "loner", "mw-only", "middleweight"),
        _attempt("a-bnch0001", 40, "bench", "fr-0", "frontier"),
        _attempt("a-bnch0002", 30, "ace", "fr-0", "frontier"),
    ]
    st = await Store.open(path)
    try:
        for events in logs:
            for e in events:
                st.append(e)
        await st.flush()
    finally:
        await st.close()
    return [events[0].attempt for events in logs]


def _rows(table: DataTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def _until(pilot, cond, n=200):
    for _ in range(n):
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


async def _store_with_marks(tmp_path: Path) -> tuple[Path, list[str]]:
    db = tmp_path / "g.db"
    pkg = make_package(tmp_path / "pkg", fmt="sprint", cid=CID)
    publish_unverified(db, pkg, datetime.now(timezone.utc) - timedelta(minutes=5))
    return db, await _fill(db)


async def test_leaderboard_screen_shows_pairwise_ratings_per_class(tmp_path):
    db, _ = await _store_with_marks(tmp_path)
    classes = (await leaderboard(db, persist=False)).class_tables()
    assert [t["weight_class"] for t in classes] == ["lightweight", "middleweight", "frontier"]
    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("b")
        await _until(pilot, lambda: bool(app.screen.query("#leaderboard-lightweight")))
        screen = app.screen
        light = _rows(screen.query_one("#leaderboard-lightweight", DataTable))
        ace = next(r for r in classes[0]["agents"] if r["agent"] == "ace")
        assert ace["one_sided"] == "lower" and ace["rank"] == 1  # one attempt, three games won
        assert light[0] == [
            ace["rank_band"],  # issue 38: three games do not separate ace from steady: both "1-2"
            "ace",
            f"{ace['rating']:.0f}",
            f"≥ {ace['low']:.0f} (one-sided)",
            "3",
            "1",
            f"{ace['mean_total']:.1f}",
            f"{ace['elo']:.0f}",
            "unverified calibration (1)",
        ]
        assert ace["rank_band"] == "1-2" and light[1][:2] == ["1-2", "steady"]  # overlapping: a shared band
        assert light[1][3].endswith("(one-sided)")  # every game lost
        assert light[1][3].startswith("≤ ") and light[1][8] == "unverified calibration (3)"
        [lone] = _rows(screen.query_one("#leaderboard-middleweight", DataTable))
        assert lone[:6] == ["-", "loner", "unrated", "no opponent", "0", "1"] and lone[8] == "competes in lightweight"
        frontier = _rows(screen.query_one("#leaderboard-frontier", DataTable))
        assert {r[1] for r in frontier} == {"ace", "bench"}
        assert all(r[0] == "-" and r[2] == "not ranked" for r in frontier)  # seed 002: frontier never ranks
        headings = [str(w.render()) for w in screen.query(".ratings-class")]
        assert headings[0].startswith("lightweight") and "ranked by pairwise rating" in headings[0]
        assert "not ranked" in headings[2]
        assert "Elo is within the bracket" in str(screen.query_one("#leaderboard-note").render())
        labels = [str(c.label) for c in screen.query_one("#leaderboard-lightweight", DataTable).columns.values()]
        assert labels[2:4] == ["Rating", "95% interval"] and "Bracket Elo" in labels


async def test_standings_mark_unverified_attempts_and_show_the_class_ratings(tmp_path):
    db, ids = await _store_with_marks(tmp_path)
    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(160, 60)) as pilot:
        await app.show_standings(ids)
        await _until(pilot, lambda: bool(app.screen.query("#standings-ratings-frontier")))
        screen = app.screen
        by_challenge = dict(sorted(screen.standings.by_challenge.items()))
        tables = {ch: _rows(screen.query_one(f"#standings-{i}", DataTable)) for i, ch in enumerate(by_challenge)}
        ratings = tables[CID]
        assert [r[1] for r in ratings] == ["ace", "steady", "steady", "steady"]
        assert all(r[6] == "unverified calibration" for r in ratings)
        assert all(r[6] == "" for r in tables["mw-only"] + tables["fr-0"])  # not published: no mark
        light = _rows(screen.query_one("#standings-ratings-lightweight", DataTable))
        assert [r[1] for r in light] == ["ace", "steady"] and light[0][3].endswith("(one-sided)")
        [lone] = _rows(screen.query_one("#standings-ratings-middleweight", DataTable))
        loner = next(r for t in screen.standings.classes for r in t["agents"] if r["agent"] == "loner")
        assert lone[1:4] == ["loner", "unrated", "no opponent"] and lone[6] == f"{loner['mean_total']:.1f}"
        assert loner["mean_total"] == screen.standings.by_challenge["mw-only"][0].total
        assert all(r[2] == "not ranked" for r in _rows(screen.query_one("#standings-ratings-frontier", DataTable)))


async def test_cli_leaderboard_rows_say_unverified_calibration(tmp_path):
    """`gauntlet leaderboard` (text and --json) counts the same marks as the screens."""
    import json
    import subprocess

    db, _ = await _store_with_marks(tmp_path)
    env_run = [sys.executable, "-m", "gauntlet_tui", "leaderboard", "--store", str(db)]
    doc = json.loads(subprocess.run([*env_run, "--json"], capture_output=True, text=True, timeout=60).stdout)
    rows = {r["agent"]: r for r in doc["agents"]}
    assert rows["ace"]["unverified_attempts"] == 1 and rows["steady"]["unverified_attempts"] == 3
    assert rows["loner"]["unverified_attempts"] == 0 and rows["bench"]["unverified_attempts"] == 0
    light = {r["agent"]: r for r in doc["classes"][0]["agents"]}
    frontier = {r["agent"]: r for r in doc["classes"][2]["agents"]}
    assert light["ace"]["unverified_attempts"] == 1 and frontier["ace"]["unverified_attempts"] == 0
    text = subprocess.run(env_run, capture_output=True, text=True, timeout=60).stdout
    lines = {ln.split()[1]: ln for ln in text.splitlines() if ln.startswith("  ") and ln.split()[0] in "1-2"}
    assert lines["steady"].rstrip().endswith("unverified calibration (3 attempts)")
    assert "unverified calibration" not in lines["loner"]
    assert "attempts run under a publication whose calibration was not verified" in text
