"""arena.pipeline"""
