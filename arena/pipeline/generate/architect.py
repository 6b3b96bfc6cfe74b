"""Seed 003 stage 1, the Challenge Architect (Steps 1.1-1.3): a template chosen from the
library or a novel concept (70/30 rule: the 30% novel-concept draw needs a model, so it is
made only when a model builder writes the package; offline the draw is recorded and a
template is used), variables randomised per weight class, the structured spec. Everything is drawn from ``Random(seed)``: the same arguments give the same spec
byte for byte (``dump``)."""

from __future__ import annotations

import random
from string import Template as Subst
from typing import Any

import yaml

from arena.challenge.models import TRAITS
from arena.formats import WEIGHT_CLASSES
from arena.pipeline.generate.templates import Template
from arena.pipeline.generate.variables import randomize

NOVEL_SHARE = 0.3  # seed 003 step 1.1
SHIFT = {1: -0.05, 2: 0.1, 3: 0.2, 4: 0.35, 5: 0.45}
PREFIX = {"debug-gauntlet": "debug", "adversarial-implementation": "adversarial", "recovery": "recovery"}


class ArchitectError(ValueError):
    """No template can serve the request (bad arguments: exit 2)."""


def trait_name(d: str) -> str:
    return d.strip().lower().replace("-", "_")


def candidates(templates: list[Template], category: str, wc: int, fmt: str | None) -> list[Template]:
    name = WEIGHT_CLASSES[wc - 1]
    return [
        t
        for t in templates
        if t.matches_category(category)
        and name in t.data["weight_classes"]
        and (fmt is None or fmt in t.data["formats"])
    ]


def select(cands: list[Template], rng: random.Random, last_used: dict[str, float]) -> Template:
    """select_weighted(candidates, weight_by='last_used_recency'): days since a template's
    last publication (31 when never or long ago) is its weight."""
    weights = [min(31.0, last_used.get(t.id, 31.0)) + 1.0 for t in cands]
    return rng.choices(cands, weights=weights, k=1)[0]


def profile(template: Template, wc: int, rng: random.Random, discriminators: list[str]) -> dict[str, float]:
    base = template.data["difficulty_base"]
    out = {}
    for d in TRAITS:
        v = float(base[d]) + SHIFT[wc] + rng.uniform(-0.05, 0.05) + (0.1 if d in discriminators else 0.0)
        out[d] = round(min(1.0, max(0.0, v)), 2)
    return out


def sub(value: object, vocab: dict[str, str]) -> object:
    if isinstance(value, str):
        return Subst(value).substitute(vocab)
    if isinstance(value, list):
        return [sub(v, vocab) for v in value]
    if isinstance(value, dict):
        return {k: sub(v, vocab) for k, v in value.items()}
    return value


def novel_concept(template: Template, category: str, discs: list[str], avoid: list[str]) -> dict[str, Any]:
    """Step 1.1's ``generate_novel_concept(category, discriminators, avoid_patterns)``: the
    request the model builder turns into a new concept. The drawn template is only its
    scaffold (layout, sizes, the benchmark agents' shape); ``avoid_patterns`` are the
    fingerprints published in the last 60 days."""
    return {
        "scaffold_template": template.id,
        "discriminators": discs,
        "avoid_patterns": sorted(set(avoid)),
        "brief": (
            f"Invent a new {category} challenge, not a variant of the scaffold template "
            f"{template.id!r}: a different system, failure and fix, that discriminates "
            f"{', '.join(discs) or 'the traits of the spec'}. Keep the scaffold's package layout, "
            "weight class and format; avoid every pattern in avoid_patterns."
        ),
    }


def architect(
    templates: list[Template],
    *,
    category: str,
    weight_class: int,
    seed: int,
    fmt: str | None = None,
    discriminators: list[str] | None = None,
    last_used: dict[str, float] | None = None,
    model_builder: bool = False,
    avoid: list[str] | None = None,
) -> dict[str, Any]:
    """``model_builder``: a model writes the package (``--builder``), so the 30% draw
    makes a novel concept (``concept_source: novel``); ``avoid``: the last 60 days'
    fingerprints, which a novel concept is told to avoid."""
    discs = [trait_name(d) for d in discriminators or []]
    cands = candidates(templates, category, weight_class, fmt)
    if not cands:
        raise ArchitectError(
            f"no template for category {category!r}, weight class {weight_class}, format {fmt or 'any'}"
        )
    rng = random.Random(f"gauntlet-architect:{seed}")
    novel = rng.random() < NOVEL_SHARE
    template = select(cands, rng, last_used or {})
    variables = randomize(template, weight_class, seed, rng)
    vocab = variables["domain_vocabulary"]
    prefix = PREFIX.get(template.category, template.category.split("-")[0])
    fp = ":".join(
        [prefix, variables["domain"], variables["bug_type"], variables["framework"], variables["codebase_size"],
         f"{variables['red_herring_count']}rh"]
    )  # fmt: skip
    traits = sorted(set(discs) | {trait_name(d) for d in template.data["discriminators"]})
    if novel and model_builder:
        fp = "novel-" + fp
        source = "novel"
    elif novel:
        source = "template (novel concept drawn: needs a model, none offline)"
    else:
        source = "template"
    spec = {
        "title": sub(template.data["title"], vocab),
        "hook": sub(template.data["hook"], vocab),
        "category": template.category,
        "format": fmt or template.data["formats"][0],
        "weight_class": weight_class,
        "template_id": template.id,
        "concept_source": source,
        "seed": seed,
        "discriminator_traits": traits,
        "difficulty_profile": profile(template, weight_class, rng, discs),
        "deliverables": sub(template.data["deliverables"], vocab),
        "expected_failure_modes": sub(template.data["expected_failure_modes"], vocab),
        "variables": variables,
        "anti_repetition_fingerprint": fp,
    }
    if source == "novel":
        spec["novel_concept"] = novel_concept(template, template.category, traits, avoid or [])
    return {"challenge_spec": spec}


def dump(spec: dict[str, Any]) -> str:
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=100)
