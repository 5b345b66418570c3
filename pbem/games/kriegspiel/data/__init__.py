"""Data of the Kriegspiel engine: board, unit table, openings, keywords and texts."""
