"""Seed 003 Step 1.2: variable randomisation per weight class, from a seeded ``Random``."""

from __future__ import annotations

import itertools
import random
import uuid
from string import Template as Subst
from typing import Any

from arena.pipeline.generate.templates import Template

SIZES = {1: "small", 2: "small", 3: "medium", 4: "medium", 5: "large"}
MODIFIERS = ("style-drift", "stale-comment", "typed-signatures", "misleading-log-entry", "dead-code")
MAX_HERRINGS = 4  # seed 003 step 2.2: capped at 4


def herring_count(rng: random.Random, wc: int) -> int:
    lo, hi = {1: (0, 1), 2: (1, 2), 3: (2, 3)}.get(wc, (3, 4))
    return rng.randint(lo, hi)


def combination(template: Template, seed: int) -> tuple[str, str, str]:
    """(framework, domain, bug_type): consecutive seeds walk a fixed shuffled order of the
    template's combinations, so seeds 0..N-1 never repeat one (N = all combinations)."""
    combos = sorted(
        itertools.product(
            template.data["framework_options"], template.data["domain_options"], template.data["bug_type_options"]
        )
    )
    random.Random(f"gauntlet-combinations:{template.id}").shuffle(combos)
    return combos[seed % len(combos)]


def vocabulary(template: Template, rng: random.Random, domain: str, bug_type: str) -> dict[str, str]:
    base = {k: str(v) for k, v in template.data["domain_options"][domain].items()}
    base["Service"] = base.get("service", domain).capitalize()
    for name, options in sorted(template.data["identifiers"].items()):
        base[name] = Subst(str(rng.choice(list(options)))).substitute(base)
    site = template.data["bug_type_options"][bug_type]["site"]
    base["fn_primary"] = base[template.data["site_functions"][site]]
    base["symptom"] = Subst(str(template.data["bug_type_options"][bug_type]["symptom"])).substitute(base)
    return base


def randomize(template: Template, wc: int, seed: int, rng: random.Random) -> dict[str, Any]:
    framework, domain, bug_type = combination(template, seed)
    count = herring_count(rng, wc)
    if wc <= 1:
        hint = rng.choice(["moderate", "generous"])
        count = min(count, 1)
    else:
        hint = "minimal" if wc == 2 else "none"
    count = min(count, MAX_HERRINGS, len(template.data["red_herrings"]))
    herrings = sorted(rng.sample(sorted(template.data["red_herrings"]), count))
    mods = sorted(rng.sample(MODIFIERS, min(len(MODIFIERS), max(1, wc))))
    if framework == "python-typed" and "typed-signatures" not in mods:
        mods = sorted(mods + ["typed-signatures"])
    ident = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    vocab = vocabulary(template, rng, domain, bug_type)
    return {
        "framework": framework,
        "domain": domain,
        "bug_type": bug_type,
        "codebase_size": SIZES.get(wc, "small"),
        "red_herring_count": count,
        "red_herrings": herrings,
        "identifier_seed": ident,
        "domain_vocabulary": vocab,
        "complexity_modifiers": mods,
        "hint_level": hint,
        "cross_component_depth": rng.randint(3, 6) if wc >= 3 else 0,
        "misleading_clue_count": rng.randint(2, 4) if wc >= 3 else (1 if wc == 2 else 0),
        "adversarial_seed": rng.randint(1, 2**31 - 1),
    }
