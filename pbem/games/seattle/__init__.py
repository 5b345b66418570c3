"""The Battle of Seattle (Brian Train): rules engine, map and tables (see docs/games/seattle.md)."""

from pbem.games.seattle.engine import SeattleRules

RULES = SeattleRules()

__all__ = ["RULES", "SeattleRules"]
