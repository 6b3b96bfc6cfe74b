import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for p in (TESTS / "fakes", TESTS / "scoring"):  # the fake providers; eventkit, scenarios
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
