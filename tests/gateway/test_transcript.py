"""The transcript: every call kept in order, capped per call and per attempt, gzipped,
and written by the gateway for real calls."""

from __future__ import annotations

import gzip
import json

from arena.gateway import read_transcript
from arena.gateway.transcript import TranscriptWriter, transcript_path
from gw_kit import HOST_OPENAI_KEY, call, register


def test_round_trip_in_order(tmp_path):
    w = TranscriptWriter(tmp_path, "att/1")
    for i in range(3):
        w.record({"status": 200}, json.dumps({"n": i}).encode(), b"data: x\n\n")
    recs = read_transcript(tmp_path, "att/1")
    assert [r["seq"] for r in recs] == [1, 2, 3]
    assert [r["request"] for r in recs] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert recs[0]["response"] == "data: x\n\n"  # a stream is kept as its text
    assert transcript_path(tmp_path, "att/1").name == "att_1.jsonl.gz"
    assert read_transcript(tmp_path, "never") == []


def test_per_call_cap(tmp_path):
    w = TranscriptWriter(tmp_path, "a", call_cap=1000)
    w.record({}, b"x" * 5000, b"{}", None)
    w.record({}, b"{}", b"y" * 10, 99999)  # a head of a longer stream
    r1, r2 = read_transcript(tmp_path, "a")
    assert r1["request"] == {"truncated": True, "bytes": 5000, "head": "x" * 1000}
    assert r2["response"]["truncated"] is True and r2["response"]["bytes"] == 99999


def test_per_attempt_cap_keeps_metadata_only(tmp_path):
    w = TranscriptWriter(tmp_path, "a", call_cap=1000, attempt_cap=2500)
    for _ in range(4):
        w.record({"status": 200}, b"r" * 600, b"s" * 600)
    recs = read_transcript(tmp_path, "a")
    assert len(recs) == 4
    assert ["omitted" in r for r in recs] == [False, False, True, True]
    assert recs[3]["request_bytes"] == 600 and recs[3]["status"] == 200
    assert transcript_path(tmp_path, "a").stat().st_size < 2500  # compressed


def test_a_cut_off_last_member_is_dropped(tmp_path):
    w = TranscriptWriter(tmp_path, "a")
    w.record({}, b"{}", b"{}")
    p = transcript_path(tmp_path, "a")
    with open(p, "ab") as f:
        f.write(gzip.compress(b'{"seq": 2}\n')[:-6])
    assert [r["seq"] for r in read_transcript(tmp_path, "a")] == [1]


async def test_gateway_writes_each_call(gateway, events, tmp_path):
    g = register(gateway, events)
    ask = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
    await call("/v1/chat/completions", ask, token=g.token, url=g.tcp_url)
    await call("/v1/chat/completions", {**ask, "stream": True}, token=g.token, url=g.tcp_url)
    await gateway.unregister("a1")  # flushes the transcript
    recs = read_transcript(tmp_path / "transcripts", "a1")
    assert [(r["status"], r["stream"]) for r in recs] == [(200, False), (200, True)]
    assert recs[0]["request"]["messages"][0]["content"] == "hi"
    assert recs[0]["response"]["usage"]["prompt_tokens"] == 12
    assert "data: [DONE]" in recs[1]["response"]
    assert recs[1]["input_tokens"] == 12
    raw = gzip.decompress(transcript_path(tmp_path / "transcripts", "a1").read_bytes())
    assert HOST_OPENAI_KEY.encode() not in raw and g.token.encode() not in raw
