"""The reports' Transcript section (issue 35 item 3): ``gauntlet report`` on an attempt
whose transcript the real gateway wrote shows each call decoded (collapsed per call in
HTML), and the Model usage table shows what the model said or called, not the first
bytes of the raw stream."""

from __future__ import annotations

import re

from transcript_kit import stored_attempt

from arena.scoring.report_usage import md_inline
from gauntlet_tui.cli import main

AID = "a-tr00001"


def test_html_and_markdown_reports_carry_the_decoded_transcript(tmp_path, capsys):
    db = stored_attempt(tmp_path / "g.db", "codex")
    html_file, md_file = tmp_path / "r.html", tmp_path / "r.md"
    assert main(["report", AID, "--out", str(html_file), "--store", str(db)]) == 0
    assert main(["report", AID, "--out", str(md_file), "--store", str(db)]) == 0
    html, md = html_file.read_text(), md_file.read_text()

    usage = html[html.index("<h2>Model usage</h2>") : html.index("<h2>Transcript</h2>")]
    assert "<th>answer</th>" in usage and "answer (start)" not in usage
    assert "All tests pass now: the loop bound was wrong." in usage and "→ shell" in usage
    section = html[html.index("<h2>Transcript</h2>") : html.index("<h2>Feedback documents</h2>")]
    assert section.count('<details class="call">') == 2 and '<details class="call" open' not in section
    assert "tool call shell (call_0)" in section and "system: same as call 1" in section
    for text in (usage + section, md):
        assert "event:" not in text and "data:" not in text and "response.output_text" not in text

    assert "## Transcript" in md and "### Call 1: → shell" in md and "### Call 2: All tests pass now" in md
    assert "| 2 | openai/gpt-5-codex | 200 |" in md and "All tests pass now" in md.split("## Transcript")[0]
    fences = re.findall(r"^(`{3,})text$", md, re.M)
    assert len(fences) == 2


def test_markdown_inline_text_is_never_markup():
    assert md_inline("a|b <img src=x> [x](y) *b* `c`\nd") == r"a\|b \<img src=x\> \[x\](y) \*b\* \`c\` d"
