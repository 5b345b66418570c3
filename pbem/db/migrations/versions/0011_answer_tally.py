"""The answers of a limited kind tallied by the minute (issue 17): the hourly cap for everybody
(`pbem.service.limits`) counted the outbox's answers of the last hour on every answer, a cost
that grew with the hour's mail (0.3 µs a row: 1.5 ms an answer at the default cap of 5,000); it
now adds up at most an hour of minutes. The answers already queued are tallied here, by minute
(the hourly jobs drop the minutes no cap counts any more).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

#: The minute of an outbox row, as each database keeps a time (SQLite: SQLAlchemy's text form).
_MINUTE = {"postgresql": "date_trunc('minute', created_at)",
           "sqlite": "strftime('%Y-%m-%d %H:%M:00.000000', created_at)"}


def upgrade() -> None:
    op.create_table('answer_tally',
                    sa.Column('kind', sa.String(), nullable=False),
                    sa.Column('minute', sa.DateTime(), nullable=False),
                    sa.Column('slot', sa.Integer(), nullable=False),
                    sa.Column('n', sa.Integer(), nullable=False),
                    sa.PrimaryKeyConstraint('kind', 'minute', 'slot'),
                    if_not_exists=True)  # a database made from newer models has it already
    minute = _MINUTE[op.get_bind().dialect.name]
    op.execute(f"INSERT INTO answer_tally (kind, minute, slot, n) SELECT kind, {minute}, 0, count(*) FROM outbox"
               f" WHERE kind IN ('reply', 'stranger') AND created_at IS NOT NULL GROUP BY kind, {minute}"
               " ON CONFLICT (kind, minute, slot) DO NOTHING")


def downgrade() -> None:
    op.drop_table('answer_tally')
