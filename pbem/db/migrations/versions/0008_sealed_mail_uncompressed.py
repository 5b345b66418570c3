"""Sealed mail stored as it is on PostgreSQL: the outbox's mails and the stored inbound mail
are ciphertext, which the server tried to compress on every insert before keeping it as it
was (`pbem.db.models.UNCOMPRESSED`; the deadline storm's reports: ~8 ms of PostgreSQL's CPU a
game). SQLite has no such setting: nothing to do there.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 08:55:00
"""

from __future__ import annotations

from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

COLUMNS = (("outbox", "raw"), ("inbound", "held"))


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE EXTERNAL")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE EXTENDED")
