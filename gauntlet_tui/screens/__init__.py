"""The screens of the Gauntlet app, one per module."""
