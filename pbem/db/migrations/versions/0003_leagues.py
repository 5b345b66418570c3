"""Leagues (issue "Leagues, ratings and the club's website"): a league of one game kind,
its players in the order they joined, and its rounds' games (a bye: a row without a game).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26 01:23:50.942246
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel's string type)
from alembic import op

import pbem.db.models  # noqa: F401  (autogenerate writes the models' own column types)
import pbem.db.sealed  # noqa: F401

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Each step checks first, as 0002: a database whose tables were made from newer
    models is brought to the schema without making anything twice."""
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if 'league' not in tables:
        op.create_table('league',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('format', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('rounds', sa.Integer(), nullable=False),
        sa.Column('seats_per_game', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('signup_open', sa.Boolean(), nullable=False),
        sa.Column('deadline', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('options_json', sa.Text(), nullable=False),
        sa.Column('policy_json', sa.Text(), nullable=False),
        sa.Column('created_at', pbem.db.models.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('league', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_league_kind'), ['kind'], unique=False)
            batch_op.create_index(batch_op.f('ix_league_status'), ['status'], unique=False)

    if 'league_game' not in tables:
        op.create_table('league_game',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('league_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('board', sa.Integer(), nullable=False),
        sa.Column('game_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('bye_player_id', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['bye_player_id'], ['player.id'], ),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.ForeignKeyConstraint(['league_id'], ['league.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('league_game', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_league_game_game_id'), ['game_id'], unique=False)
            batch_op.create_index(batch_op.f('ix_league_game_league_id'), ['league_id'], unique=False)

    if 'league_member' not in tables:
        op.create_table('league_member',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('league_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('joined_at', pbem.db.models.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['league_id'], ['league.id'], ),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('league_id', 'player_id')
        )
        with op.batch_alter_table('league_member', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_league_member_league_id'), ['league_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('league_member', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_league_member_league_id'))

    op.drop_table('league_member')
    with op.batch_alter_table('league_game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_league_game_league_id'))
        batch_op.drop_index(batch_op.f('ix_league_game_game_id'))

    op.drop_table('league_game')
    with op.batch_alter_table('league', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_league_status'))
        batch_op.drop_index(batch_op.f('ix_league_kind'))

    op.drop_table('league')
