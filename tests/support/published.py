"""A publication in a store's ``published/`` as `challenge publish` lays it out
(arena/pipeline/published.py): only the two records the repetition windows read."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path


def publish_record(store: Path, cid: str, fingerprint: str, at: datetime) -> None:
    entry = store.with_name(store.name + ".d") / "published" / cid / "1"
    entry.mkdir(parents=True)
    (entry / "metadata.json").write_text(json.dumps({"id": cid, "fingerprint": fingerprint}))
    (entry / "lifecycle.json").write_text(json.dumps({"state": "live", "published_at": at.isoformat()}))
