"""arena.challenge"""
