"""One filter for every feedback field: judge-side test text never reaches the agent.

``redact_result(result, judge_files, workspace_texts)`` passes every text field of a
``JudgeResult`` that can carry what the submission printed or raised — failure
messages, ``build.errors``/``warnings``, ``lint.issues``, ``notices`` and the runner
tail in ``infra_error`` — through ``Redactor.clean`` and adds one ``judge.leak_redacted``
finding (error) naming what was removed.

Provenance, not string match: the judge-side material is (a) the distinctive lines of
the judge-side test files (stripped, 12+ characters) and (b) the names of the hidden and
adversarial test functions and files — each kept only when the submission's own
workspace does not contain it (a line the agent wrote itself, or a static test the agent
can read, is never withheld). A field is withheld whole when it holds that material
verbatim, or inside an encoded run: base64 (standard, url-safe), base32, base85/ascii85,
hex, each possibly compressed (zlib, gzip, bz2, lzma), nested up to three levels, and the
text reversed or rot13'd. Hidden names that appear alone are replaced by
``<a hidden test>`` (the rest of the field is kept).
"""

from __future__ import annotations

import base64
import binascii
import bz2
import codecs
import io
import tokenize
import lzma
import re
import zlib
from pathlib import Path
from typing import overload

from arena.results import Finding, JudgeResult

WITHHELD = "message withheld: it carried judge-side test text"
HIDDEN_NAME = "<a hidden test>"
LINE_WITHHELD = "[a judge-side test line withheld]"
MIN_LINE = 12
_SKIP_PREFIX = ("def ", "async def ", "class ")  # (their names are handled as names)
_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-~!#$%&()*;<>?@^`{|}]{20,}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){12,}")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)|^\s*class\s+(Test\w*)", re.M)
_MAX_DECODED = 4 << 20


def _decoders():
    def b64(s: bytes) -> bytes:
        s = s.rstrip(b"=").replace(b"-", b"+").replace(b"_", b"/")
        return base64.b64decode(s[: len(s) - len(s) % 4], validate=True)

    return [
        b64,
        lambda s: base64.b32decode(s + b"=" * (-len(s) % 8)),
        base64.b85decode,
        base64.a85decode,
        lambda s: binascii.unhexlify(s),
    ]


def _partial(make):
    """Decompress as much as a (possibly cut) stream holds: messages are capped."""

    def run(data: bytes) -> bytes:
        return make().decompress(data, _MAX_DECODED) if make is not bz2.BZ2Decompressor else make().decompress(data)

    return run


def _decompress(data: bytes) -> list[bytes]:
    out = []
    for f in (
        _partial(zlib.decompressobj),
        _partial(lambda: zlib.decompressobj(-15)),
        _partial(lambda: zlib.decompressobj(31)),
        _partial(lzma.LZMADecompressor),
        _partial(bz2.BZ2Decompressor),
    ):
        try:
            got = f(data)
        except Exception:  # noqa: BLE001 — not this format
            continue
        if len(got) <= _MAX_DECODED:
            out.append(got)
    return out


class Redactor:
    def __init__(self, lines: set[str], hidden_names: set[str]):
        self.suspicious = False  # judge text arrived encoded, reversed or rot13'd
        self.lines = lines
        self.hidden_names = hidden_names
        self._names_re = (
            re.compile(r"\b(" + "|".join(map(re.escape, sorted(hidden_names, key=len, reverse=True))) + r")\b")
            if hidden_names
            else None
        )

    @classmethod
    def from_files(cls, static: list[Path], hidden: list[Path], workspace_texts: list[str]) -> "Redactor":
        """``static``/``hidden``: judge-side test files (hidden = hidden + adversarial);
        ``workspace_texts``: the submission's files (what the agent already has)."""
        ws = "\n".join(workspace_texts)
        lines: set[str] = set()
        names: set[str] = set()
        for f in [*static, *hidden]:
            try:
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            rows = code_rows(text) if f.suffix == ".py" else None
            for row, ln in enumerate(text.splitlines(), start=1):
                s = ln.strip()
                if rows is not None and row not in rows:
                    continue  # test data (literals only): an agent's output may well echo it
                if len(s) >= MIN_LINE and not s.startswith(_SKIP_PREFIX) and s not in ws:
                    lines.add(s)
            if f in hidden:
                for m in _DEF.finditer(text):
                    name = m.group(1) or m.group(2)
                    if len(name) > 5 and name not in ws:
                        names.add(name)
                if f.stem not in ws:
                    names.add(f.stem)
        return cls(lines, names)

    # -- detection ---------------------------------------------------------------
    def _has_judge_text(self, text: str) -> bool:
        if any(ln in text for ln in self.lines):
            return True
        squeezed = " ".join(text.split())
        return any(" ".join(ln.split()) in squeezed for ln in self.lines if " " in ln)

    def _carries(self, text: str, depth: int = 0) -> bool:
        """Judge lines anywhere (verbatim, reversed, rot13, encoded); hidden names only
        inside an encoded run (a bare name is rewritten by ``clean``, not withheld)."""
        if self._has_judge_text(text) or (depth > 0 and self._mentions_hidden(text)):
            return True
        if depth == 0:
            for variant in (text[::-1], codecs.decode(text, "rot13")):
                if self._has_judge_text(variant) or self._mentions_hidden(variant):
                    return True
        if depth >= 3:
            return False
        for tok in set(_TOKEN.findall(text)) | set(_HEX.findall(text)):
            for blob in self._decode(tok.encode()):
                if self._carries(blob.decode("utf-8", "replace"), depth + 1):
                    return True
        return False

    def _decode(self, tok: bytes) -> list[bytes]:
        out = []
        for dec in _decoders():
            try:
                raw = dec(tok)
            except Exception:  # noqa: BLE001 — not this encoding
                continue
            if not raw:
                continue
            out.append(raw)
            out.extend(_decompress(raw))
        return out

    def _mentions_hidden(self, text: str) -> bool:
        return bool(self._names_re and self._names_re.search(text))

    # -- the filter ----------------------------------------------------------------
    @overload
    def clean(self, text: str) -> tuple[str, bool]: ...
    @overload
    def clean(self, text: None) -> tuple[None, bool]: ...

    def clean(self, text: str | None) -> tuple[str | None, bool]:
        """(text to show, whether anything was removed). A line holding a judge-side line
        verbatim becomes ``LINE_WITHHELD``; judge text reversed, rot13'd or inside an
        encoded run withholds the whole field; bare hidden names become ``HIDDEN_NAME``."""
        if not text:
            return text, False
        changed = False
        kept = []
        for ln in text.split("\n"):
            if self._has_judge_text(ln):
                kept.append(LINE_WITHHELD)
                changed = True
            else:
                kept.append(ln)
        out = "\n".join(kept)
        if self._carries(out):  # what is left after the verbatim lines still carries it
            self.suspicious = True
            return WITHHELD, True
        if changed and self._has_judge_text(out):
            return WITHHELD, True
        if self._names_re is not None and self._mentions_hidden(out):
            return self._names_re.sub(HIDDEN_NAME, out), True
        return out, changed


def redact_result(result: JudgeResult, redactor: Redactor) -> list[str]:
    """Filter every feedback field of ``result`` in place; returns what was touched."""
    hit: list[str] = []

    def run(label: str, text: str) -> str:
        new, changed = redactor.clean(text)
        if changed:
            hit.append(label)
        return new

    for t in result.tests:
        t.message = run(f"message of {t.id}", t.message)
    result.build.errors = [run("build.errors", e) for e in result.build.errors]
    result.build.warnings = [run("build.warnings", e) for e in result.build.warnings]
    result.lint.issues = [run("lint.issues", e) for e in result.lint.issues]
    result.notices = [run("notices", n) for n in result.notices]
    if result.verifier_output:
        result.verifier_output = run("verifier_output", result.verifier_output)
    if result.infra_error:
        result.infra_error = run("infra_error", result.infra_error)
    if hit:
        first = sorted(set(hit))
        # Judge-side text quoted verbatim (pytest shows a failing assert's own line) is the
        # judge protecting its tests, not the agent's doing: an info finding (0 points).
        # Judge text encoded, reversed or rot13'd on its way out is exfiltration: an error.
        how = "encoded" if redactor.suspicious else "quoted"
        result.integrity.append(
            Finding(
                severity="error" if redactor.suspicious else "info",
                check="judge.leak_redacted",
                detail=f"{len(hit)} feedback field(s) {how} judge-side test text and were withheld "
                f"or rewritten ({', '.join(first[:5])}{' ...' if len(first) > 5 else ''})",
            )
        )
    return hit


_NEUTRAL = frozenset(",:()[]{}")


def code_rows(text: str) -> set[int] | None:
    """1-based rows of a Python source holding code (a token other than a string literal, a
    number or punctuation); rows made only of literals are test data. None when the text does
    not tokenize."""
    rows: set[int] = set()
    skip = {
        tokenize.STRING,
        tokenize.NUMBER,
        tokenize.NEWLINE,
        tokenize.NL,
        tokenize.ENDMARKER,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.COMMENT,
    }
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type in skip or (t.type == tokenize.OP and t.string in _NEUTRAL):
                continue
            if t.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                continue
            rows.add(t.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return rows


def redactor_for(test_dirs: dict, snapshot) -> Redactor:
    """The redactor of one judge run: the judge-side files in play (``test_dirs`` as in
    ``JudgeSpec``) against the text files of the submission's snapshot."""
    static: list[Path] = []
    hidden: list[Path] = []
    for suites in test_dirs.values():
        for suite, roots in suites.items():
            for root in roots:
                root = Path(root)
                files = [root] if root.is_file() else sorted(root.rglob("*.py"))
                (static if suite == "static" else hidden).extend(files)
    texts = []
    for rel, e in snapshot.entries.items():
        if e.kind == "file" and e.size <= (1 << 20):
            try:
                texts.append((Path(snapshot.path) / rel).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
    return Redactor.from_files(static, hidden, texts)


def withhold_all(result: JudgeResult) -> None:
    """The fallback when the filter itself failed: nothing the run printed is shown."""
    for t in result.tests:
        if t.message:
            t.message = WITHHELD
    result.build.errors = [WITHHELD for _ in result.build.errors]
    result.lint.issues = [WITHHELD for _ in result.lint.issues]
    if result.verifier_output:
        result.verifier_output = WITHHELD
