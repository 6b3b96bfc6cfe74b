"""An attempt's transcript decoded call by call (issue 35 item 3).

``Transcript(path, model_calls)`` reads the gateway's file one call at a time
(``records.iter_records``): ``calls()`` yields each ``Call`` in order, ``index()`` one
``CallInfo`` per call (a line's worth, plus fingerprints and the call's offset in the
file), ``call(n)`` decodes call ``n`` alone. A call shows only what is new in it: the
system prompt and the tools as "same as call K" when an earlier call sent the same; of
its messages, those past the longest run it shares with an earlier call (``continues``,
``earlier``), and an assistant message that only carries an earlier answer back is named
as that call's answer. Costs come from the record (``cost_usd``) or, for transcripts
written before the gateway kept it there, from the attempt's ``model.call`` events
matched by status, tokens and latency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from arena.transcripts import answer as ans
from arena.transcripts import sent
from arena.transcripts.records import Record, iter_records, read_record, transcript_file

HEADLINE = 160


@dataclass
class CallInfo:
    n: int
    offset: int
    provider: str = ""
    model: str = ""
    endpoint: str = ""
    api: str = ans.CHAT
    status: object = None
    stream: bool = False
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    headline: str = ""
    tools_called: list[str] = field(default_factory=list)
    stop_reason: str | None = None
    omitted: str | None = None
    system_print: str | None = None
    tools_print: str | None = None
    message_prints: tuple[str, ...] = ()
    answer_print: str = ""

    @property
    def label(self) -> str:
        return "/".join(x for x in (self.provider, self.model) if x)


@dataclass
class Call:
    info: CallInfo
    request: sent.Request
    answer: ans.Answer
    system_same_as: int | None = None
    tools_same_as: int | None = None
    continues: int | None = None  # the earlier call whose messages this one starts with
    earlier: int = 0  # how many of them
    new: list[sent.Message] = field(default_factory=list)
    echoes: dict[int, int] = field(default_factory=dict)  # index in new → the call whose answer it carries back
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        i = self.info
        return {
            "call": i.n,
            "provider": i.provider,
            "model": i.model,
            "endpoint": i.endpoint,
            "api": i.api,
            "status": i.status,
            "stream": i.stream,
            "latency_ms": i.latency_ms,
            "input_tokens": i.input_tokens,
            "output_tokens": i.output_tokens,
            "cost_usd": i.cost_usd,
            "system": {"same_as_call": self.system_same_as} if self.system_same_as else {"text": self.request.system},
            "tools": {"same_as_call": self.tools_same_as} if self.tools_same_as else {"names": self.request.tools},
            "continues_call": self.continues,
            "earlier_messages": self.earlier,
            "new_messages": [
                {**m.as_dict(), **({"answer_of_call": self.echoes[k]} if k in self.echoes else {})}
                for k, m in enumerate(self.new)
            ],
            "answer": self.answer.as_dict(),
            "omitted": i.omitted,
            "notes": self.notes,
        }


def _num(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def headline(a: ans.Answer) -> str:
    """One line: the first line of the answer's text, else its tool calls, else its error."""
    first = next((ln.strip() for ln in a.text.splitlines() if ln.strip()), "")
    if first:
        out = first
    elif a.tool_calls:
        out = "→ " + ", ".join(t.name or "?" for t in a.tool_calls)
    elif a.error:
        out = "error: " + a.error
    else:
        out = "(no text)"
    out = " ".join(out.split())
    return out if len(out) <= HEADLINE else out[: HEADLINE - 1] + "…"


class _Costs:
    """The ``model.call`` events' costs, matched to transcript records in order."""

    def __init__(self, model_calls: Iterable[Mapping[str, object]]) -> None:
        self.rows = [dict(c) for c in model_calls]
        self.used = [False] * len(self.rows)

    def match(self, rec: Record) -> float | None:
        if (c := _num(rec.get("cost_usd"))) is not None:
            return c
        lat = _num(rec.get("latency_ms"))
        for i, row in enumerate(self.rows):
            if self.used[i] or row.get("status") != rec.get("status"):
                continue
            if row.get("input_tokens") != rec.get("input_tokens") or row.get("output_tokens") != rec.get(
                "output_tokens"
            ):
                continue
            rl = _num(row.get("latency_ms"))
            if lat and (rl is None or abs(rl - lat) > 0.01):
                continue
            self.used[i] = True
            return _num(row.get("cost_usd"))
        return None


class Transcript:
    def __init__(
        self,
        path: Path | None,
        model_calls: Iterable[Mapping[str, object]] = (),
        records: list[Record] | None = None,
    ) -> None:
        """``path``: the gateway's file, read a call at a time; or ``records``: calls already
        read (``arena.gateway.read_transcript``), their offsets their positions."""
        self.path = Path(path) if path is not None else None
        self._records = records
        self._model_calls = list(model_calls)
        self._index: list[CallInfo] | None = None
        self._costs = _Costs(self._model_calls)  # the index's, matched once in order

    @classmethod
    def of(cls, store: Path, attempt: str, model_calls: Iterable[Mapping[str, object]] = ()) -> "Transcript":
        return cls(transcript_file(Path(store), attempt), model_calls)

    def exists(self) -> bool:
        return self._records is not None or (self.path is not None and self.path.is_file())

    def _walk(self, after: int | None = None) -> Iterator[tuple[int, Record]]:
        """Records with their offsets, those past the one at ``after`` only when given."""
        if self._records is not None:
            start = 0 if after is None else after + 1
            yield from ((i, self._records[i]) for i in range(start, len(self._records)))
        elif self.path is not None:
            if after is None:
                yield from iter_records(self.path)
                return
            walk = iter_records(self.path, after)
            next(walk, None)  # the record at ``after`` itself
            yield from walk

    def raw(self) -> Iterator[Record]:
        """The records as the gateway kept them, in order (``show --transcript --raw``)."""
        for _offset, rec in self._walk():
            yield rec

    def _at(self, offset: int) -> Record | None:
        if self._records is not None:
            return self._records[offset] if 0 <= offset < len(self._records) else None
        return read_record(self.path, offset) if self.path is not None else None

    # -- decoding ----------------------------------------------------------------------
    def _decode(self, n: int, offset: int, rec: Record, costs: _Costs | None, before: list[CallInfo]) -> Call:
        api = ans.api_of(rec.get("endpoint"), rec.get("provider"), rec.get("request"))
        info = CallInfo(
            n=n,
            offset=offset,
            provider=str(rec.get("provider") or ""),
            model=str(rec.get("model") or ""),
            endpoint=str(rec.get("endpoint") or ""),
            api=api,
            status=rec.get("status"),
            stream=bool(rec.get("stream")),
            latency_ms=_num(rec.get("latency_ms")),
            input_tokens=_int(rec.get("input_tokens")),
            output_tokens=_int(rec.get("output_tokens")),
            cost_usd=costs.match(rec) if costs is not None else _num(rec.get("cost_usd")),
        )
        notes: list[str] = []
        if "unreadable" in rec:
            notes.append(f"this call's record is unreadable: {rec['unreadable']}")
        if rec.get("omitted"):
            info.omitted = str(rec["omitted"])
            notes.append(
                f"bodies not kept ({info.omitted}): request {rec.get('request_bytes', '?')} bytes, "
                f"answer {rec.get('response_bytes', '?')} bytes"
            )
            req, answer = sent.Request(), ans.Answer()
        else:
            req = sent.parse(api, rec.get("request"))
            answer = ans.decode(api, rec.get("response"), stream=rec.get("stream"))
        info.headline = headline(answer) if not info.omitted else "(bodies not kept)"
        info.tools_called = [t.name for t in answer.tool_calls]
        info.stop_reason = answer.stop_reason
        if req.raw_system is not None:
            info.system_print = sent.fingerprint(req.raw_system)
        if req.raw_tools is not None:
            info.tools_print = sent.fingerprint(req.raw_tools)
        info.message_prints = tuple(sent.fingerprint(m) for m in req.raw_messages)
        info.answer_print = sent.answer_print(answer)
        call = Call(info, req, answer, notes=notes + req.notes)
        same = [b for b in before if b.api == api]
        call.system_same_as = next(
            (b.n for b in same if info.system_print and b.system_print == info.system_print), None
        )
        call.tools_same_as = next((b.n for b in same if info.tools_print and b.tools_print == info.tools_print), None)
        best, best_n = 0, None
        for b in same:
            k = 0
            for x, y in zip(info.message_prints, b.message_prints):
                if x != y:
                    break
                k += 1
            if k and k >= best:
                best, best_n = k, b.n
        call.continues, call.earlier = best_n, best
        call.new = req.messages[best:]
        answers = {b.answer_print: b.n for b in same if b.tools_called or b.headline != "(no text)"}
        k = 0
        while k < len(call.new):  # a run of assistant messages (Responses: one item each)
            end = k
            while end < len(call.new) and call.new[end].role == "assistant":
                end += 1
            if end == k:
                k += 1
                continue
            p = sent.messages_answer_print(call.new[k:end])
            if p in answers:
                call.echoes.update({j: answers[p] for j in range(k, end)})
            k = end
        return call

    def calls(self) -> Iterator[Call]:
        """Every call in order, decoded, one at a time."""
        costs = _Costs(self._model_calls)
        before: list[CallInfo] = []
        for n, (offset, rec) in enumerate(self._walk(), 1):
            call = self._decode(n, offset, rec, costs, before)
            before.append(call.info)
            yield call

    def update(self) -> list[CallInfo]:
        """Index the calls written since the last look (a live attempt's file grows);
        the new ones. Reads from the last indexed call on, never the file again."""
        if self._index is None:
            self._index = []
        last = self._index[-1].offset if self._index else None
        new: list[CallInfo] = []
        for offset, rec in self._walk(last):
            call = self._decode(len(self._index) + 1, offset, rec, self._costs, self._index)
            self._index.append(call.info)
            new.append(call.info)
        return new

    def index(self) -> list[CallInfo]:
        """One line's worth per call (reads the file once, keeps no bodies)."""
        if self._index is None:
            self.update()
        return list(self._index or [])

    def __len__(self) -> int:
        return len(self.index())

    def call(self, n: int) -> Call:
        """Call ``n`` (1-based) alone; IndexError when the transcript has no such call."""
        infos = self.index()
        if not 1 <= n <= len(infos):
            raise IndexError(n)
        info = infos[n - 1]
        rec = self._at(info.offset)
        if rec is None:
            raise IndexError(n)
        call = self._decode(n, info.offset, rec, None, infos[: n - 1])
        call.info.cost_usd = info.cost_usd  # matched once, in order, by the index
        return call
