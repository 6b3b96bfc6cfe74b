"""The judge model's parts of seed 003 Stage 2.5: a file deliverable's ``check:`` rubric,
read three times through the model gateway, median with the outlier discarded.

Readings are taken once per attempt and kept in a cache keyed by attempt
(``<store>.d/judge-readings/<attempt>.json``), so re-judging gives the same scorecard;
scoring reads them as ``readings`` (``{part: {"score": 0-1, "readings": [...], "model"}}``).
With no judge model and no stored reading a part is "not judged: no judge model" and
scores 0 (it is not passed).

    readings = await take_readings(events, snapshots_root, model="openai/gpt-x",
                                   gateway_root=Path(...), env=os.environ)
    save_readings(cache_dir, attempt, readings); judge_attempt(events, readings=readings)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from arena.scoring.history import AttemptHistory
    from arena.scoring.resultview import Judged

READINGS = 3
MAX_DOC_CHARS = 20_000
NO_MODEL = "not judged: no judge model"
_NUMBER = re.compile(r"(?<![\w.])(100|\d{1,2})(?:\.\d+)?(?![\w.])")


def median_discard(values: list[float]) -> float:
    """Seed 003's ``median_with_outlier_discard``: drop the reading farthest from the
    median, the median of the rest (of three readings: the mean of the two closest)."""
    if not values:
        raise ValueError("no readings")
    xs = sorted(values)
    if len(xs) >= 3:
        mid = xs[len(xs) // 2]
        xs.remove(max(xs, key=lambda x: (abs(x - mid), x)))
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def parse_score(text: str) -> float | None:
    """The first whole number 0-100 of an answer, as 0-1 (None when there is none)."""
    m = _NUMBER.search(text or "")
    return None if m is None else int(m.group(1)) / 100.0


def checks(events: Iterable[Any]) -> tuple[list[tuple[str, str]], str | None]:
    """((deliverable name, rubric) of every file deliverable with a check, scored snapshot hash)."""
    started, final_hash, scored = {}, None, None
    hashes: dict[int, str] = {}
    for e in events:
        kind, data = (e["kind"], e["data"]) if isinstance(e, Mapping) else (e.kind, e.data)
        if kind == "attempt.started":
            started = data
        elif kind == "submission.received":
            hashes[int(data.get("submission") or 0)] = str(data.get("hash") or "")
        elif kind == "submission.judged":
            final_hash = hashes.get(int(data.get("submission") or 0), final_hash)
        elif kind == "attempt.finished":
            scored = data.get("scored_submission")
    if scored is not None and scored in hashes:
        final_hash = hashes[scored]
    out = [
        (str(d["name"]), str(d["check"]))
        for d in started.get("deliverables") or []
        if d.get("kind") == "file" and d.get("check")
    ]
    return out, final_hash


def prompt(name: str, rubric: str, text: str) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": "You grade one deliverable of a coding challenge "
            "against its rubric. Answer with one whole number from 0 (fails) to 100 (fully "
            "meets the rubric), then one sentence of reason.",
        },
        {
            "role": "user",
            "content": f"Rubric for {name}: {rubric}\n\n--- {name} ---\n"
            f"{text[:MAX_DOC_CHARS]}\n--- end ---\nScore 0-100:",
        },
    ]


async def take_readings(
    events: list[Any],
    snapshots_root: Path,
    *,
    model: str,
    gateway_root: Path,
    env: Mapping[str, str],
    attempt: str = "judge",
) -> dict[str, dict]:
    """Ask the judge model (through a Gateway of our own) to grade each ``check:``."""
    import aiohttp  # noqa: PLC0415

    from arena.gateway import Gateway  # noqa: PLC0415
    from arena.gateway.limits import UsageLimits  # noqa: PLC0415

    parts, digest = checks(events)
    if not parts:
        return {}
    gw = Gateway(root=gateway_root, env=env)
    await gw.start()
    out: dict[str, dict] = {}
    try:
        grant = gw.register(f"{attempt}-judge", model=model, limits=UsageLimits(), emit=lambda kind, data: None)
        async with aiohttp.ClientSession() as http:
            for name, rubric in parts:
                path = Path(snapshots_root) / str(digest) / name.lstrip("./")
                try:
                    text = path.read_bytes()[: MAX_DOC_CHARS * 4].decode("utf-8", "replace") if digest else ""
                except OSError:
                    text = ""
                values: list[float] = []
                for _ in range(READINGS):
                    if not text.strip():
                        values.append(0.0)
                        continue
                    async with http.post(
                        f"{grant.tcp_url}/v1/chat/completions",
                        headers={"Authorization": f"Bearer {grant.token}"},
                        json={"model": model, "messages": prompt(name, rubric, text), "temperature": 1.0},
                    ) as r:
                        body = await r.json(content_type=None)
                    msg = ((body.get("choices") or [{}])[0].get("message") or {}).get("content", "")
                    v = parse_score(str(msg))
                    values.append(0.0 if v is None else v)
                out[f"deliverable:{name}"] = {
                    "score": round(median_discard(values), 4),
                    "readings": values,
                    "model": model,
                }
        await gw.unregister(f"{attempt}-judge")
    finally:
        await gw.aclose()
    return out


def cache_path(cache_dir: Path, attempt: str) -> Path:
    return Path(cache_dir) / f"{re.sub(r'[^A-Za-z0-9._-]', '_', attempt)}.json"


def load_readings(cache_dir: Path, attempt: str) -> dict[str, dict]:
    p = cache_path(cache_dir, attempt)
    try:
        return dict(json.loads(p.read_text()))
    except (OSError, ValueError):
        return {}


def save_readings(cache_dir: Path, attempt: str, readings: Mapping[str, dict]) -> None:
    p = cache_path(cache_dir, attempt)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(dict(readings), sort_keys=True, indent=1))


def deliverable_adjustment(
    history: AttemptHistory, final_result: Judged | None, readings: Mapping[str, dict] | None
) -> tuple[float, list[str]]:
    """(objective points to add, not-judged notes) for the scored submission's checked file
    deliverables: the check's reading joins the deterministic part (must_mention share, or
    presence when none) as the mean of the two; no reading = 0 for the check."""
    readings = readings or {}
    specs = [d for d in history.started.get("deliverables") or [] if d.get("kind") == "file" and d.get("check")]
    total_w = sum(float(d.get("weight") or 0) for d in history.started.get("deliverables") or [])
    if not specs or final_result is None or total_w <= 0:
        return 0.0, []
    delta, notes = 0.0, []
    for d in specs:
        name = str(d["name"])
        det = max(0.0, min(1.0, float((final_result.deliverables or {}).get(name, 0.0))))
        reading = readings.get(f"deliverable:{name}")
        llm = float(reading["score"]) if reading else 0.0
        if not reading:
            notes.append(f"deliverable {name} check: {NO_MODEL}")
        combined = 0.0 if det == 0 else (det + llm) / 2
        delta += 100.0 * float(d.get("weight") or 0) / total_w * (combined - det)
    return delta, notes
