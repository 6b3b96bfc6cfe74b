"""gauntlet_tui"""
