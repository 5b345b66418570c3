"""Block Mania / Mega Mania (Richard Halliwell, Games Workshop 1987): the blocks as cross-section maps
(``blocks.py``, ``data/blocks.toml``); see docs/games/blockmania.md. Not a registered game yet."""
