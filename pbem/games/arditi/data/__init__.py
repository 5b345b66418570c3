"""Data of the Arditi del Popolo engine: board geometry, rule numbers, police pieces, keywords, texts."""
