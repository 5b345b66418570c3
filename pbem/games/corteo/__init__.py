"""Corteo (Edizioni del No 1979, Mondadori Giochi 1980): the City as a hex map, its street guide,
the tables and the rules engine (see docs/games/corteo.md)."""

from pbem.games.corteo.engine import CorteoRules

RULES = CorteoRules()

__all__ = ["RULES", "CorteoRules"]
