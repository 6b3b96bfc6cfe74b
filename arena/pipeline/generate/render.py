"""Rendering a template's files: sites as bug/fix/partial/hack variants, then the
vocabulary (two passes of ``string.Template``; the second is strict, so a placeholder
the template forgot to define is an error naming it)."""

from __future__ import annotations

from string import Template as Subst
from typing import Any

from arena.pipeline.generate.templates import Template, TemplateError

VARIANTS = ("fix", "bug", "partial", "hack")


def site_roles(template: Template, spec: dict[str, Any]) -> dict[str, str]:
    """role -> site: 'primary' is the bug_type's site, the others from ``roles``."""
    bug = spec["variables"]["bug_type"]
    roles = {"primary": str(template.data["bug_type_options"][bug]["site"])}
    roles.update({str(k): str(v) for k, v in template.data["roles"].items()})
    return roles


def starter_state(template: Template, spec: dict[str, Any]) -> dict[str, str]:
    """site -> variant in the starter: the planted sites buggy, every other site fixed."""
    planted = set(site_roles(template, spec).values())
    return {s: ("bug" if s in planted else "fix") for s in template.data["sites"]}


def overlay_state(template: Template, spec: dict[str, Any], plan: dict[str, Any]) -> dict[str, str]:
    state = starter_state(template, spec)
    roles = site_roles(template, spec)
    for variant in ("fix", "partial", "hack"):
        for role in plan.get(variant) or []:
            site = roles[str(role)]
            has = variant in template.data["sites"][site]
            state[site] = variant if has else ("bug" if variant == "hack" else "fix")
    return state


def context(template: Template, spec: dict[str, Any], state: dict[str, str]) -> dict[str, str]:
    v = spec["variables"]
    ctx = {k: str(x) for k, x in template.data["framework_options"][v["framework"]].items()}
    typed = v["framework"] == "python-typed"
    ctx["imports"] = "from typing import Any, Sequence\n" if typed else ""
    herrings = [str(template.data["red_herrings"][h]) for h in v["red_herrings"]]
    ctx["herrings"] = "".join("\n\n" + h.rstrip("\n") + "\n" for h in herrings)
    for site, variant in state.items():
        ctx[f"site_{site}"] = str(template.data["sites"][site][variant]).rstrip("\n")
    primary = template.data.get("primary_tests", {}).get(site_roles(template, spec)["primary"], {})
    for suite in ("static", "hidden"):
        ctx[f"primary_{suite}"] = str(primary.get(suite, "")).rstrip("\n")
    ctx["primary_kind"] = str(primary.get("kind", ""))
    ctx["adversarial_seed"] = str(v["adversarial_seed"])
    ctx["adversarial_count"] = str(template.data.get("adversarial_count", 12))
    return ctx


def render(text: str, template: Template, spec: dict[str, Any], state: dict[str, str], where: str) -> str:
    ctx = context(template, spec, state)
    first = Subst(text).safe_substitute(ctx)
    try:
        return Subst(first).substitute({**ctx, **spec["variables"]["domain_vocabulary"]})
    except (KeyError, ValueError) as exc:
        raise TemplateError(f"{template.root / 'files' / where}: placeholder {exc} is not defined") from None


def path(rel: str, spec: dict[str, Any]) -> str:
    return Subst(rel).substitute(spec["variables"]["domain_vocabulary"])
