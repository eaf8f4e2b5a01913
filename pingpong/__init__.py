"""pingpong: live role-play evaluation of language models.

The repository keeps one folder per layer (core, characters, situations, sessions, tui);
this package gathers them under one import name, so an install adds only `pingpong`.
"""
