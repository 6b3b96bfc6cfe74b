"""Gauntlet engine: no Textual import anywhere under arena/."""
