"""arena.agents"""
