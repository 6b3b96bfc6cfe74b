"""Screenshots of a heat named by adapter and model (docs/screens.md, issue 34): the
dashboard table, the big board and the Standings at 160 and 200 columns, as SVG (and PNG
when chromium is there). Not a test: ``python tests/tui/shoot_heat.py OUT_DIR``."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import heat_kit as H  # noqa: E402

SIZES = ((160, 44), (200, 50))


async def _ready(pilot) -> None:  # noqa: ANN001
    for _ in range(3):
        pilot.app.tick(full=True)
        await pilot.pause()


async def shoot(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    for cols, rows in SIZES:
        rig = H.heat_rig()
        app = H.heat_app(rig, theme="gauntlet-dark")
        async with app.run_test(size=(cols, rows)) as pilot:
            await _ready(pilot)
            shots.append(Path(app.save_screenshot(f"heat-table-{cols}.svg", str(out))))
            app.action_big_board()
            await _ready(pilot)
            await pilot.pause(0.2)
            pilot.app.tick(full=True)
            await pilot.pause()
            shots.append(Path(app.save_screenshot(f"heat-board-{cols}.svg", str(out))))
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "g.db"
            rig = await H.stored_heat(db)
            app = H.heat_app(rig, theme="gauntlet-dark", store=db)
            async with app.run_test(size=(cols, rows)) as pilot:
                await _ready(pilot)
                await app.show_standings([c[0] for c in H.CONTESTANTS])
                await _ready(pilot)
                await pilot.pause(0.3)
                shots.append(Path(app.save_screenshot(f"heat-standings-{cols}.svg", str(out))))
    return shots


def to_png(svg: Path, cols: int, rows: int) -> Path | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    png = svg.with_suffix(".png")
    width, height = int(cols * 12.2 + 40), int(rows * 24.4 + 80)
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            svg.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return png


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "shots")
    for svg in asyncio.run(shoot(out)):
        cols = int(svg.stem.rsplit("-", 1)[1])
        rows = dict(SIZES)[cols]
        print(svg, to_png(svg, cols, rows) or "(no chromium: SVG only)")


if __name__ == "__main__":
    main()
