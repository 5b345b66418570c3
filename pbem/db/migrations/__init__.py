"""The schema's history as Alembic revisions (see docs/operations.md, "A new revision")."""
