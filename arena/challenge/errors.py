"""One clear message per problem: file, key, what was expected (never a traceback)."""

from __future__ import annotations

import difflib
from typing import Any, Iterable

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from arena.results import Finding


class ChallengeError(ValueError):
    """A package that cannot be loaded; ``findings`` holds one finding per problem."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.findings = list(findings)
        super().__init__("\n".join(f.detail for f in self.findings) or "invalid challenge")

    @property
    def unreadable(self) -> bool:
        """True when the package could not even be read (no dir, manifest unparseable)."""
        return any(f.check == "unreadable" for f in self.findings)


def error(check: str, detail: str) -> Finding:
    return Finding(severity="error", check=check, detail=detail)


def warning(check: str, detail: str) -> Finding:
    return Finding(severity="warning", check=check, detail=detail)


def info(check: str, detail: str) -> Finding:
    return Finding(severity="info", check=check, detail=detail)


def key_path(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def show(value: object) -> str:
    """A short rendering of a bad value for 'got ...'."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    return str(value)[:60]


_ID_EXPECTED = "expected an id of lowercase letters, digits and dashes ([a-z0-9][a-z0-9-]*)"


def _expected(err: ErrorDetails) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "value_error":
        return str(err["msg"]).removeprefix("Value error, ")
    if kind == "string_pattern_mismatch":
        return (
            _ID_EXPECTED if "a-z0-9" in str(ctx.get("pattern", "")) else f"expected text matching {ctx.get('pattern')}"
        )
    table = {
        "string_type": "expected a string",
        "string_too_short": "expected a non-empty string",
        "int_type": "expected an integer",
        "int_parsing": "expected an integer",
        "int_from_float": "expected an integer",
        "float_type": "expected a number",
        "float_parsing": "expected a number",
        "bool_type": "expected true or false",
        "bool_parsing": "expected true or false",
        "dict_type": "expected a mapping",
        "model_type": "expected a mapping",
        "model_attributes_type": "expected a mapping",
        "list_type": "expected a list",
    }
    if kind in table:
        return table[kind]
    if kind == "literal_error":
        return f"expected one of {str(ctx.get('expected', '')).replace(chr(39), '')}"
    if kind == "string_too_long":
        return f"expected at most {ctx.get('max_length')} characters"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        sym = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}[kind]
        bound = next(iter(ctx.values()), "")
        return f"expected a number {sym} {bound}"
    if kind == "too_short":
        return f"expected at least {ctx.get('min_length')} item(s)"
    if kind == "too_long":
        return f"expected at most {ctx.get('max_length')} item(s)"
    return f"expected a valid value ({err['msg']})"


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Known key names of the mapping at ``loc`` (for 'did you mean')."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        field = current.model_fields.get(part) or next(
            (f for f in current.model_fields.values() if f.alias == part), None
        )
        if field is None:
            return []
        current = _model_in(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    return []


def _model_in(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def translate(exc: ValidationError, file: str, model: type[BaseModel], check: str = "manifest") -> list[Finding]:
    """Pydantic errors -> one finding per problem, missing keys grouped per mapping."""
    findings: list[Finding] = []
    missing: dict[tuple[Any, ...], list[str]] = {}
    for err in exc.errors():
        loc = tuple(err["loc"])
        if err["type"] == "missing":
            missing.setdefault(loc[:-1], []).append(str(loc[-1]))
            continue
        if err["type"] == "extra_forbidden":
            name = str(loc[-1])
            known = _fields_at(model, loc[:-1])
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            expected = f"expected one of {', '.join(known)}" if known and not close else ""
            detail = f"{file}: key '{key_path(loc)}': unknown key{hint}"
            detail += f"; {expected}" if expected else ""
            detail += "; keys starting x- are free for authors"
            findings.append(error(check, detail))
            continue
        where = f"key '{key_path(loc)}'" if loc else "top level"
        value = err.get("input")
        got = "" if isinstance(value, (dict, list)) and err["type"] == "value_error" else f", got {show(value)}"
        findings.append(error(check, f"{file}: {where}: {_expected(err)}{got}"))
    for parent, names in missing.items():
        if len(names) == 1:
            detail = f"{file}: key '{key_path(parent + (names[0],))}': required key missing"
        else:
            where = f"key '{key_path(parent)}': " if parent else ""
            keys = ", ".join(f"'{n}'" for n in names)
            detail = f"{file}: {where}required keys {keys} missing"
        findings.append(error(check, detail))
    return findings
