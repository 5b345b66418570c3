"""Workers on PostgreSQL (issue 17): inbound mail is stored first, sealed, until a worker
handles it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.db.sealed

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns('inbound')}
    if 'held' in columns:  # made from newer models already (as 0002 checks)
        return
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.add_column(sa.Column('held', pbem.db.sealed.SealedBytes(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('inbound', schema=None) as batch_op:
        batch_op.drop_column('held')
