"""Reusable widgets of the pingpong TUI (they keep their own DEFAULT_CSS)."""
