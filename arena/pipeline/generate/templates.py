"""The template library shipped with Gauntlet: ``library/<id>/template.yaml`` and the
package files under ``library/<id>/files/`` (``*.tmpl``, ``${name}`` placeholders, in
paths too). docs/challenges.md, "Template format"."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

LIBRARY = Path(__file__).parent / "library"
REQUIRED = (
    "id", "title", "hook", "category", "formats", "weight_classes", "time_limit", "iterations",
    "framework_options", "domain_options", "identifiers", "bug_type_options", "sites",
    "site_functions", "roles", "red_herrings", "deliverables", "expected_failure_modes", "difficulty_base",
    "discriminators", "judge_categories", "agents", "notes",
)  # fmt: skip


class TemplateError(ValueError):
    """A template that cannot be used: names the file and key."""


@dataclass(frozen=True)
class Template:
    root: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def category(self) -> str:
        return str(self.data["category"])

    def matches_category(self, category: str) -> bool:
        c = category.strip().lower()
        return c == self.category or c in [str(a) for a in self.data.get("aliases") or []]

    def files(self) -> list[tuple[str, str]]:
        """(relative path with placeholders, text) of every package file, sorted."""
        base = self.root / "files"
        out = []
        for p in sorted(base.rglob("*.tmpl")):
            out.append((p.relative_to(base).as_posix()[: -len(".tmpl")], p.read_text("utf-8")))
        return out


def load_template(root: Path) -> Template:
    f = root / "template.yaml"
    try:
        data = yaml.safe_load(f.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TemplateError(f"{f}: cannot be read as YAML: {exc}") from None
    if not isinstance(data, dict):
        raise TemplateError(f"{f}: expected a mapping")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise TemplateError(f"{f}: key {missing[0]!r}: missing (every key of a template is required)")
    if data["id"] != root.name:
        raise TemplateError(f"{f}: key 'id': {data['id']!r} differs from its directory {root.name!r}")
    return Template(root, data)


def library(root: Path = LIBRARY) -> list[Template]:
    return [load_template(d) for d in sorted(root.iterdir()) if (d / "template.yaml").is_file()]


def categories(templates: list[Template]) -> list[str]:
    return sorted({t.category for t in templates} | {str(a) for t in templates for a in t.data.get("aliases") or []})
