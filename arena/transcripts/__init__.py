"""An attempt's model calls, readable (issue 35 item 3, CONTRACT §11 "Transcript").

From what the gateway keeps per call (``arena/gateway/transcript.py``: the request body,
the answer's body or stream text, capped), this package assembles per call the new
messages sent, the assistant's text, reasoning and tool calls (streams of the three APIs
assembled into the final message), the stop reason, tokens, cost and latency:

- ``records``: the file read one gzip member (one call) at a time, with offsets;
- ``answer``: the answer decoded (Chat Completions, Responses, Anthropic Messages;
  streamed or not; cut, invalid or odd bodies decoded as far as they go, with notes);
- ``sent``: the request in one shape (system, tools, messages of parts), fingerprints;
- ``calls``: ``Transcript``: ``calls()``, ``index()``, ``call(n)`` with what is new;
- ``render``: plain, printable, bounded lines of a call.

No Textual here: the CLI, the reports and the TUI screen all read these.
"""

from arena.transcripts.answer import Answer, ToolCall, decode
from arena.transcripts.calls import Call, CallInfo, Transcript
from arena.transcripts.records import iter_records, read_record, transcript_file

__all__ = [
    "Answer",
    "Call",
    "CallInfo",
    "ToolCall",
    "Transcript",
    "decode",
    "iter_records",
    "read_record",
    "transcript_file",
]
