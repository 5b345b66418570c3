"""The rules engines, one package per game (pure: no I/O, no clock, no randomness)."""
