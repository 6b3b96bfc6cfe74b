"""arena.scoring"""
