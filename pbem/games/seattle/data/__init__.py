"""Data of The Battle of Seattle: the area map, every table of the rulebook, the texts."""
