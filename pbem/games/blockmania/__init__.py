"""Block Mania / Mega Mania (Richard Halliwell, Games Workshop 1987): the blocks as cross-section maps,
the Blockers, the Mania / Justice deck and the rules engine (see docs/games/blockmania.md)."""

from pbem.games.blockmania.engine import BlockManiaRules

RULES = BlockManiaRules()

__all__ = ["RULES", "BlockManiaRules"]
