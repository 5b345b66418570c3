"""The stored mails still waiting for a worker on an index of their own (issue 17): a worker's
claim (`pbem.service.queue.claim`) lists the waiting mails in order, and without it PostgreSQL
walked the primary key from the first mail ever received, past every handled one, on each claim.
A partial index holds only the waiting ones.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 23:30:00
"""

from __future__ import annotations

from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # IF NOT EXISTS: a database made from newer models has it already
    op.execute("CREATE INDEX IF NOT EXISTS ix_inbound_waiting ON inbound (id)"
               " WHERE status IN ('stored', 'processing', 'retrying')")


def downgrade() -> None:
    op.drop_index('ix_inbound_waiting', table_name='inbound')
