"""arena.judge"""
