"""Kriegspiel: Guy Debord's Game of War (rules engine; see docs/games/kriegspiel.md)."""

from pbem.games.kriegspiel.engine import KriegspielRules

RULES = KriegspielRules()

__all__ = ["RULES", "KriegspielRules"]
