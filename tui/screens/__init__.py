"""Screens of the pingpong TUI, one module per screen."""
