"""A template's own briefing (the optional ``briefing`` key of template.yaml): the text with
``${name}`` placeholders from the vocabulary plus ``${hint}`` (the spec's hint level),
``${minutes}`` and ``${iterations}``; a placeholder left undefined is an error naming the
template file. Templates without the key get boundary-batches' briefing (texts.py)."""

from __future__ import annotations

from string import Template as Subst
from typing import Any

from arena.challenge.units import parse_duration
from arena.pipeline.generate.templates import Template, TemplateError

HINTS = {
    "generous": "The report points at `${fn_primary}`; start there.",
    "moderate": "Start from the function whose output the report describes.",
    "minimal": "",
    "none": "",
}


def template_briefing(template: Template, spec: dict[str, Any]) -> str:
    v = spec["variables"]
    vocab = {str(k): str(x) for k, x in v["domain_vocabulary"].items()}
    ctx = {
        **vocab,
        "title": str(spec["title"]),
        "hook": str(spec["hook"]),
        "hint": Subst(HINTS[v["hint_level"]]).substitute(vocab),
        "minutes": str(int(parse_duration(str(template.data["time_limit"])) // 60)),
        "iterations": str(template.data["iterations"]),
    }
    try:
        text = Subst(str(template.data["briefing"])).substitute(ctx)
    except (KeyError, ValueError) as exc:
        raise TemplateError(
            f"{template.root / 'template.yaml'}: key 'briefing': placeholder {exc} is not defined"
        ) from None
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.replace(" \n", "\n").rstrip("\n") + "\n"
