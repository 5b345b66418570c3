"""Storage: SQLModel tables and the engine (SQLite with WAL, or PostgreSQL)."""
