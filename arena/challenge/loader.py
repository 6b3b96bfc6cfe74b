"""Loading a challenge package (CONTRACT §1) with clear messages for every failure."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import ValidationError

from arena.challenge.agents import ScriptedAgent, load_agent
from arena.challenge.errors import ChallengeError, error, translate
from arena.challenge.format_checks import effective_reveal_at, effective_thresholds, format_findings
from arena.challenge.models import Manifest
from arena.challenge.safety import symlink_findings
from arena.challenge.yamlio import load_mapping, read_text
from arena.formats import FORMATS, FormatRules
from arena.results import Finding

MANIFEST = "challenge.yaml"
BRIEFING = "briefing.md"
SUITES = ("static", "hidden", "adversarial")
MANIFEST_EXPECTED = "a YAML mapping of the manifest keys (CONTRACT §2)"
BUNDLED_ROOT = Path(__file__).resolve().parent.parent / "bundled"


class Challenge:
    """A loaded, structurally valid package. Paths are absolute."""

    def __init__(self, root: Path, manifest: Manifest, briefing: str, agents: dict[str, ScriptedAgent]):
        self.root = root
        self.manifest = manifest
        self.briefing = briefing
        self._agents = agents

    def __repr__(self) -> str:
        return f"Challenge({self.manifest.id!r}, {str(self.root)!r})"

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def rules(self) -> FormatRules:
        return FORMATS[self.manifest.format]

    @property
    def starter_dir(self) -> Path:
        return self.root / "starter"

    @property
    def solution_dir(self) -> Path | None:
        d = self.root / "solution"
        return d if d.is_dir() else None

    @property
    def phase_count(self) -> int:
        """1 + the manifest's phases (phase 1 is the top-level briefing); 1 for formats
        without phases (a non-marathon's phases are a finding, never used)."""
        if not self.rules.reveal_marks:
            return 1
        return 1 + len(self.manifest.phases)

    @cached_property
    def reveal_at(self) -> list[float]:
        """Time fallback of phases 2.. as fractions of the time limit."""
        return effective_reveal_at(self.manifest)

    @cached_property
    def advance_thresholds(self) -> list[float]:
        """Share of phase n's static tests that opens phase n+1 (index 0 = leaving phase 1)."""
        return effective_thresholds(self.manifest)

    def tests_root(self, phase: int) -> Path:
        return self.root / "tests" if phase == 1 else self.root / "phases" / str(phase) / "tests"

    def test_dirs(self, phase: int = 1) -> dict[str, list[Path]]:
        """Judge-side test directories of one phase, by suite (only suites present)."""
        base = self.tests_root(phase)
        return {s: [base / s] for s in SUITES if (base / s).is_dir()}

    def phase_briefing(self, n: int) -> str | None:
        if n == 1:
            return self.briefing
        p = self.root / "phases" / str(n) / BRIEFING
        if not p.is_file():
            return None
        return read_text(p, f"phases/{n}/{BRIEFING}", "structure", "the phase briefing as text")

    @property
    def agent_names(self) -> list[str]:
        return sorted(self._agents)

    def scripted_agent(self, name: str) -> ScriptedAgent:
        try:
            return self._agents[name]
        except KeyError:
            known = ", ".join(self.agent_names) or "none in this package"
            raise ChallengeError(
                [error("agents", f"agents/{name}.yaml: no such scripted agent: expected one of {known}")]
            ) from None


def _read_manifest(root: Path) -> Manifest:
    data = load_mapping(root / MANIFEST, MANIFEST, "unreadable", MANIFEST_EXPECTED)
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise ChallengeError(translate(exc, MANIFEST, Manifest)) from None


def _structure_findings(root: Path) -> list[Finding]:
    out: list[Finding] = []
    if not (root / BRIEFING).is_file():
        out.append(
            error(
                "structure",
                f"{BRIEFING}: required file missing: expected the agent's briefing (markdown) in the package root",
            )
        )
    if not (root / "starter").is_dir():
        out.append(error("structure", "starter/: required directory missing: expected the agent's initial workspace"))
    if not (root / "tests" / "static").is_dir():
        out.append(
            error("structure", "tests/static/: required directory missing: expected the judge-side static tests")
        )
    return out


def _load_agents(root: Path) -> tuple[dict[str, ScriptedAgent], list[Finding]]:
    agents: dict[str, ScriptedAgent] = {}
    findings: list[Finding] = []
    agents_dir = root / "agents"
    if not agents_dir.is_dir():
        return agents, findings
    for f in sorted(agents_dir.iterdir()):
        if f.suffix not in (".yaml", ".yml") or not f.is_file():
            continue
        try:
            agents[f.stem] = load_agent(root, f)
        except ChallengeError as exc:
            findings.extend(exc.findings)
    return agents, findings


def load_findings(path: str | Path) -> tuple[Challenge | None, list[Finding]]:
    """The challenge (when the manifest parsed) and every structural finding."""
    root = Path(path)
    if not root.exists():
        return None, [error("unreadable", f"{path}: no such directory: expected a challenge package directory")]
    if not root.is_dir():
        return None, [error("unreadable", f"{path}: not a directory: expected a challenge package directory")]
    root = root.resolve()
    findings = symlink_findings(root)
    try:
        manifest = _read_manifest(root)
    except ChallengeError as exc:
        return None, findings + exc.findings + _structure_findings(root)
    findings += format_findings(manifest)
    findings += _structure_findings(root)
    briefing = ""
    if (root / BRIEFING).is_file():
        try:
            briefing = read_text(root / BRIEFING, BRIEFING, "structure", "the briefing as UTF-8 text")
        except ChallengeError as exc:
            findings += exc.findings
    agents, agent_findings = _load_agents(root)
    findings += agent_findings
    return Challenge(root, manifest, briefing, agents), findings


def load_challenge(path: str | Path) -> Challenge:
    """Load a package; raise ``ChallengeError`` (one finding per problem) if it is unusable."""
    challenge, findings = load_findings(path)
    errors = [f for f in findings if f.severity == "error"]
    if errors or challenge is None:
        raise ChallengeError(errors)
    return challenge


def bundled_challenges() -> list[Path]:
    """Bundled packages: the directories of ``arena/bundled/`` holding a ``challenge.yaml``."""
    if not BUNDLED_ROOT.is_dir():
        return []
    return sorted(p for p in BUNDLED_ROOT.iterdir() if p.is_dir() and (p / MANIFEST).is_file())


def resolve_challenge(ref: str | Path) -> Path:
    """A package directory, or the id of a bundled challenge -> its directory."""
    p = Path(ref)
    if p.is_dir():
        return p.resolve()
    text = str(ref)
    for d in bundled_challenges():
        if d.name == text:
            return d
    ids = ", ".join(d.name for d in bundled_challenges()) or "none installed"
    raise ChallengeError(
        [
            error(
                "unreadable",
                f"{text}: no such challenge: expected a package directory or a bundled challenge id ({ids})",
            )
        ]
    )
