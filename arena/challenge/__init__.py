"""Challenge packages (CONTRACT §1-3): manifest models, loading, validation."""

from arena.challenge.agents import STEP_KINDS, ScriptedAgent, Step
from arena.challenge.errors import ChallengeError
from arena.challenge.loader import (
    SUITES,
    Challenge,
    bundled_challenges,
    load_challenge,
    resolve_challenge,
)
from arena.challenge.models import Deliverable, Judge, Manifest, Phase, Sandbox
from arena.challenge.units import parse_duration, parse_size_mb

__all__ = [
    "STEP_KINDS",
    "SUITES",
    "Challenge",
    "ChallengeError",
    "Deliverable",
    "Judge",
    "Manifest",
    "Phase",
    "Sandbox",
    "ScriptedAgent",
    "Step",
    "bundled_challenges",
    "load_challenge",
    "parse_duration",
    "parse_size_mb",
    "resolve_challenge",
]
