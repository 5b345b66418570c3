"""Data of Corteo: the City (hex map, places, objectives) and the tables."""
