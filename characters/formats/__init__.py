"""Readers for foreign card formats (Tavern V1/V2/V3, PNG, .charx, PingPong settings)."""
