"""themes"""
