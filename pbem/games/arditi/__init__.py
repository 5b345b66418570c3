"""Arditi del Popolo, snake variant (rules engine; see docs/games/arditi.md)."""

from pbem.games.arditi.engine import ArditiRules

RULES = ArditiRules()

__all__ = ["RULES", "ArditiRules"]
