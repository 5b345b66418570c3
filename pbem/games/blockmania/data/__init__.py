"""Data of Block Mania / Mega Mania: the blocks as cross-section maps (blocks.toml) and the rest."""
