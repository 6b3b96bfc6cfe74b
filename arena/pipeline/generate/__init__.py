"""Seed 003 stages 1 and 2 without a model: the Architect (a template library, seeded
variables, the structured spec and gate 1) and the offline Scenario Builder (a package
from a spec, gate 2), and the job that runs them before gates 3-5 (``job``)."""
