"""A league's boards are written with their round, each with its players, before their games
are made (`pbem.service.leagues.pair`): a pairing cut short by a crash is finished by the next
``league pair`` instead of pairing a new round over a half-made one.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 07:44:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel's string type)
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the boards already made keep '' (their players are the game's seats)
    with op.batch_alter_table('league_game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('table_json', sqlmodel.sql.sqltypes.AutoString(), nullable=False,
                                      server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('league_game', schema=None) as batch_op:
        batch_op.drop_column('table_json')
