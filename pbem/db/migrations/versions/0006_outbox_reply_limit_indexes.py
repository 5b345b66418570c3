"""The reply limits count on indexes (issue 17, the floor): the outbox's rows of a kind in
the last hour, for everybody and for one address (case-insensitive), read from an index on
every answer instead of the whole outbox.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26 05:40:00
"""

from __future__ import annotations

from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # IF NOT EXISTS, not a look at the indexes first: a database made from newer models has
    # them already, and SQLite does not reflect an expression index (it warns and skips it)
    op.execute("CREATE INDEX IF NOT EXISTS ix_outbox_kind_created ON outbox (kind, created_at)")
    op.execute("CREATE INDEX IF NOT EXISTS ix_outbox_kind_recipient_created "
               "ON outbox (kind, lower(recipients_json), created_at)")


def downgrade() -> None:
    op.drop_index('ix_outbox_kind_recipient_created', table_name='outbox')
    op.drop_index('ix_outbox_kind_created', table_name='outbox')
