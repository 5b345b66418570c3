"""Observers and press (issue "Observers and press"): the addresses following a game, and the
messages between its seats (the body encrypted at rest).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26 01:33:19.843247
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel's string type)
from alembic import op

import pbem.db.models  # noqa: F401  (autogenerate writes the models' own column types)
import pbem.db.sealed  # noqa: F401

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Each step checks first, as 0002: a database whose tables were made from newer
    models is brought to the schema without making anything twice."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if 'observer' not in tables:
        op.create_table('observer',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('address', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('language', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('seen_seq', sa.Integer(), nullable=False),
        sa.Column('created_at', pbem.db.models.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('observer', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_observer_address'), ['address'], unique=False)
            batch_op.create_index(batch_op.f('ix_observer_game_id'), ['game_id'], unique=False)
            batch_op.create_index(batch_op.f('ix_observer_status'), ['status'], unique=False)

    if 'press' not in tables:
        op.create_table('press',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('turn', sa.Integer(), nullable=False),
        sa.Column('sender_seat', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('sender_address', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('to_json', sa.Text(), nullable=False),
        sa.Column('everyone', sa.Boolean(), nullable=False),
        sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('body', pbem.db.sealed.SealedText(), nullable=False),
        sa.Column('created_at', pbem.db.models.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('press', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_press_game_id'), ['game_id'], unique=False)
            batch_op.create_index(batch_op.f('ix_press_sender_address'), ['sender_address'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('press', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_press_sender_address'))
        batch_op.drop_index(batch_op.f('ix_press_game_id'))

    op.drop_table('press')
    with op.batch_alter_table('observer', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_observer_status'))
        batch_op.drop_index(batch_op.f('ix_observer_game_id'))
        batch_op.drop_index(batch_op.f('ix_observer_address'))

    op.drop_table('observer')
