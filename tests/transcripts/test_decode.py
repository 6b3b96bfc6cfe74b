"""The transcript decoder on what real upstreams and agents can leave in a transcript:
streams split anywhere, cut at the cap, events that are not JSON, bodies that are not
JSON, shapes no API gives, hostile text; and the file read one call at a time."""

from __future__ import annotations

import gzip
import json

from arena.gateway.transcript import TranscriptWriter, transcript_path
from arena.transcripts import Transcript, decode, iter_records, read_record
from arena.transcripts.answer import CHAT, MESSAGES, RESPONSES
from arena.transcripts.render import BRIEF, FULL, MAX_LINE, call_lines


def sse(*events: tuple[str | None, object]) -> str:
    out = ""
    for name, data in events:
        out += (f"event: {name}\n" if name else "") + "data: " + (data if isinstance(data, str) else json.dumps(data))
        out += "\n\n"
    return out


def chunk(delta: dict, finish: str | None = None) -> tuple[None, dict]:
    return None, {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_chat_stream_assembles_text_and_tool_call_arguments_split_across_deltas():
    text = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Looking "}),
        chunk({"content": "now."}),
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "bash", "arguments": '{"cmd": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"ls -la"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "read", "arguments": "{}"}}]}),
        chunk({}, "tool_calls"),
        (None, {"choices": [], "usage": {"prompt_tokens": 3}}),
        (None, "[DONE]"),
    )
    a = decode(CHAT, text)
    assert a.text == "Looking now." and a.stop_reason == "tool_calls" and not a.notes
    assert [(t.name, t.arguments, t.id) for t in a.tool_calls] == [
        ("bash", '{"cmd": "ls -la"}', "c1"),
        ("read", "{}", "c2"),
    ]


def test_a_stream_cut_at_the_cap_decodes_what_came_with_a_marker():
    full = sse(*[chunk({"content": f"word{i} "}) for i in range(50)], chunk({}, "stop"), (None, "[DONE]"))
    head = full[: len(full) // 2 + 7]  # mid-event
    a = decode(CHAT, {"truncated": True, "bytes": len(full), "head": head})
    assert a.text.startswith("word0 word1 ") and "word49" not in a.text
    assert any("cut at the transcript's cap" in n for n in a.notes)
    assert any("ends before its last event" in n for n in a.notes)
    assert any("not JSON" in n for n in a.notes)  # the half event
    cut_json = decode(MESSAGES, {"truncated": True, "bytes": 999999, "head": '{"content": [{"type": "te'})
    assert cut_json.text == "" and any("cannot be parsed" in n for n in cut_json.notes)


def test_responses_stream_without_its_completed_event_is_built_from_the_deltas():
    text = sse(
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": {"type": "message"}},
        ),
        ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "delta": "Hel"}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "delta": "lo"}),
        (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": 1,
                "item": {"type": "function_call", "name": "shell", "call_id": "k"},
            },
        ),
        (
            "response.function_call_arguments.delta",
            {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"a":'},
        ),
        (
            "response.function_call_arguments.delta",
            {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "1}"},
        ),
    )
    a = decode(RESPONSES, text)
    assert a.text == "Hello" and [(t.name, t.arguments, t.id) for t in a.tool_calls] == [("shell", '{"a":1}', "k")]
    assert any("ends before its last event" in n for n in a.notes)
    failed = sse(
        (
            "response.failed",
            {
                "type": "response.failed",
                "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
            },
        )
    )
    f = decode(RESPONSES, failed)
    assert f.error == "server_error: boom" and f.stop_reason == "failed"


def test_anthropic_thinking_and_an_error_event_mid_stream():
    text = sse(
        ("message_start", {"type": "message_start", "message": {"usage": {}}}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hmm."}},
        ),
        ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    )
    a = decode(MESSAGES, text)
    assert a.reasoning == "Hmm." and a.error == "overloaded_error: Overloaded"


def test_bodies_that_are_not_what_an_api_gives_never_crash():
    html = decode(CHAT, "<html><body>502 Bad Gateway</body></html>")
    assert html.error and "neither JSON nor a stream" in html.notes[0]
    assert "not an object" in decode(CHAT, [1, 2]).notes[0]
    err = decode(MESSAGES, {"type": "error", "error": {"type": "usage_limit", "message": "usage limit reached"}})
    assert err.error == "usage_limit: usage limit reached"
    for odd in (
        {"choices": 5},
        {"choices": [{"delta": [1], "message": "x"}]},
        {"output": [None, 3, {"type": 7}]},
        {"content": "str"},
    ):
        for api in (CHAT, RESPONSES, MESSAGES):
            decode(api, odd)  # a shape no API gives: decoded as far as it goes
            decode(api, sse((None, odd)))
    assert decode(CHAT, None).notes == ["no answer kept"]


def _transcript(tmp_path, *calls, **caps) -> Transcript:
    w = TranscriptWriter(tmp_path, "a", **caps)
    for meta, req, resp in calls:
        w.record(meta, json.dumps(req).encode(), resp if isinstance(resp, bytes) else json.dumps(resp).encode())
    return Transcript(transcript_path(tmp_path, "a"))


META = {"provider": "openai", "model": "m", "endpoint": "/v1/chat/completions", "status": 200, "latency_ms": 5.0}


def test_hostile_text_is_shown_literally_and_every_line_is_bounded(tmp_path):
    hostile = "ok\x1b[2J\x1b]0;owned\x07 [@click=app.quit] [b]bold[/b] \udcff\ufffd" + "x" * 200_000
    body = {
        "choices": [
            {
                "message": {
                    "content": hostile,
                    "tool_calls": [
                        {
                            "function": {
                                "name": "w\x1b[31m",
                                "arguments": json.dumps({"content": "a\nb\x1b[0m\n" * 5000}),
                            }
                        }
                    ],
                }
            }
        ]
    }
    req = {"messages": [{"role": "user", "content": "line\n" * 20_000}]}
    t = _transcript(tmp_path, (META, req, body))
    (call,) = list(t.calls())
    for limits in (BRIEF, FULL):
        lines = call_lines(call, limits)
        text = "\n".join(lines)
        assert max(map(len, lines)) <= MAX_LINE and len(lines) < 6000
        assert "\x1b" not in text and "\x07" not in text and "\udcff" not in text
        assert "[@click=app.quit] [b]bold[/b]" in text  # markup is text here
        assert "more characters on this line]" in text and "more line(s)" in text


def test_a_ten_megabyte_line_is_cut_at_the_cap_and_its_start_shown(tmp_path):
    body = {"choices": [{"message": {"content": "\x1b[2Jz" * 2_000_000}}]}
    t = _transcript(tmp_path, (META, {"messages": []}, body))
    (call,) = list(t.calls())
    assert call.answer.text.startswith("\x1b[2Jz") and len(call.answer.text) < 300_000
    lines = call_lines(call, FULL)
    assert max(map(len, lines)) <= MAX_LINE and "\x1b" not in "".join(lines)
    assert any("the start of its text is shown" in ln for ln in lines)


def test_records_are_read_one_call_at_a_time_with_their_offsets(tmp_path):
    req = {"messages": [{"role": "user", "content": "hi"}]}
    body = {"choices": [{"message": {"content": "answer"}, "finish_reason": "stop"}]}
    t = _transcript(
        tmp_path,
        (META, req, body),
        ({**META, "status": 429}, req, {"error": {"type": "usage_limit"}}),
        (META, req, body),
    )
    recs = list(iter_records(t.path))
    assert [r["status"] for _, r in recs] == [200, 429, 200] and len({o for o, _ in recs}) == 3
    assert read_record(t.path, recs[1][0])["status"] == 429
    with open(t.path, "ab") as f:  # a member cut short by a crash, then nothing
        f.write(gzip.compress(b'{"seq": 4}\n')[:-6])
    assert len(t.index()) == 3 and t.call(2).answer.error == "usage_limit"
    assert t.call(3).system_same_as is None and t.call(3).continues == 2 and t.call(3).new == []


def test_omitted_and_cut_requests_say_so(tmp_path):
    req = {"messages": [{"role": "user", "content": "y" * 3000}]}
    t = _transcript(
        tmp_path, (META, req, {"choices": []}), (META, req, {"choices": []}), call_cap=1000, attempt_cap=1500
    )
    one, two = list(t.calls())
    assert any("messages are not known" in n for n in one.notes)
    assert two.info.omitted and "bodies not kept (attempt cap)" in "\n".join(call_lines(two))


def test_lone_surrogate_escapes_in_a_body_are_kept_not_a_lost_call(tmp_path):
    """A body may escape a lone surrogate ("\\udcff" is valid JSON); the writer used to
    raise UnicodeEncodeError on it (in its thread: the call's record was lost)."""
    t = _transcript(
        tmp_path,
        (
            META,
            {"messages": [{"role": "user", "content": "a\udcffb"}]},
            {"choices": [{"message": {"content": "c\ud800d"}}]},
        ),
    )
    (call,) = list(t.calls())
    assert call.answer.text == "c\ud800d" and call.request.messages[0].parts[0].text == "a\udcffb"
    text = "\n".join(call_lines(call))
    assert "\ud800" not in text and "\udcff" not in text
    text.encode("utf-8")  # printable: nothing a terminal or a file cannot take


def test_a_live_transcript_is_indexed_from_where_it_was_left(tmp_path):
    req = {"messages": [{"role": "user", "content": "hi"}]}
    body = {"choices": [{"message": {"content": "one"}, "finish_reason": "stop"}]}
    t = _transcript(tmp_path, (META, req, body), (META, req, body))
    assert [i.n for i in t.index()] == [1, 2] and t.update() == []
    w = TranscriptWriter(tmp_path, "a")
    w.record(META, json.dumps(req).encode(), json.dumps({"choices": [{"message": {"content": "three"}}]}).encode())
    (new,) = t.update()
    assert new.n == 3 and new.headline == "three" and len(t.index()) == 3
    assert t.call(3).continues == 2


def test_an_answer_sent_back_as_several_responses_items_is_named_once(tmp_path):
    meta = {**META, "endpoint": "/v1/responses"}
    fc = {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": "c1"}
    said = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    out = {"type": "function_call_output", "call_id": "c1", "output": "a.py"}
    t = _transcript(
        tmp_path,
        (meta, {"instructions": "sys", "input": [user]}, {"status": "completed", "output": [said, fc]}),
        (meta, {"instructions": "sys", "input": [user, said, fc, out]}, {"status": "completed", "output": [said]}),
    )
    lines = call_lines(t.call(2))
    assert lines.count("  assistant: call 1's answer, sent back (shell)") == 1, lines
    assert "system: same as call 1" in lines and "  tool result (c1), 4 characters:" in lines


def test_the_file_is_where_the_gateway_writes_it(tmp_path):
    from arena.transcripts import transcript_file

    db = tmp_path / "g.db"
    for attempt in ("a-1234", "a/../b c", "", "é\x1b[2J", "x" * 300):
        assert transcript_file(db, attempt) == transcript_path(tmp_path / "g.db.d" / "transcripts", attempt)
