"""arena.sandbox"""
