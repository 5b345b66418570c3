"""The club (issue "A club by mail"): players' own zones, absences, the seats of open games,
sign-up requests, votes, the game master by mail, the calendar sequence of a deadline and the
absence days a player used. New NOT NULL columns get a server default for the rows already there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26 01:21:16.265674
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Each step checks first: a database whose tables were made from newer models (or half-way
    through this revision) is brought to the schema without making anything twice."""
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    if 'absence' not in tables:
        op.create_table('absence',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('start_date', sa.Date(), nullable=False),
        sa.Column('end_date', sa.Date(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('cancelled', sa.Boolean(), nullable=False),
        sa.Column('cancelled_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('absence', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_absence_player_id'), ['player_id'], unique=False)
    if 'seat_entry' not in tables:
        op.create_table('seat_entry',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('seat', sa.String(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=True),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('language', sa.String(), nullable=False),
        sa.Column('team_json', sa.Text(), nullable=False),
        sa.Column('taken_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'seat')
        )
        with op.batch_alter_table('seat_entry', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_seat_entry_game_id'), ['game_id'], unique=False)
    if 'signup_request' not in tables:
        op.create_table('signup_request',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=True),
        sa.Column('seat', sa.String(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('kind', sa.String(), nullable=False),
        sa.Column('payload', sa.String(), nullable=False),
        sa.Column('code_hash', sa.String(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('mailed', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('expires_at', sa.DateTime(), nullable=True),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('signup_request', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_signup_request_address'), ['address'], unique=False)
            batch_op.create_index(batch_op.f('ix_signup_request_game_id'), ['game_id'], unique=False)
            batch_op.create_index(batch_op.f('ix_signup_request_status'), ['status'], unique=False)
    if 'vote' not in tables:
        op.create_table('vote',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('seat', sa.String(), nullable=False),
        sa.Column('kind', sa.String(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('phase_seq', sa.Integer(), nullable=False),
        sa.Column('cast_at', sa.DateTime(), nullable=True),
        sa.Column('withdrawn_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
        )
        with op.batch_alter_table('vote', schema=None) as batch_op:
            batch_op.create_index(batch_op.f('ix_vote_game_id'), ['game_id'], unique=False)
    have = {c['name'] for c in inspector.get_columns('game')}
    with op.batch_alter_table('game', schema=None) as batch_op:
        if 'master_address' not in have:
            batch_op.add_column(sa.Column('master_address', sa.String(), nullable=False, server_default=''))
        if 'master_secret_hash' not in have:
            batch_op.add_column(sa.Column('master_secret_hash', sa.String(), nullable=False, server_default=''))
    have = {c['name'] for c in inspector.get_columns('holder')}
    with op.batch_alter_table('holder', schema=None) as batch_op:
        if 'absence_days_used' not in have:
            batch_op.add_column(sa.Column('absence_days_used', sa.Integer(), nullable=False, server_default='0'))
    have = {c['name'] for c in inspector.get_columns('phase')}
    with op.batch_alter_table('phase', schema=None) as batch_op:
        if 'calendar_sequence' not in have:
            batch_op.add_column(sa.Column('calendar_sequence', sa.Integer(), nullable=False, server_default='0'))
    have = {c['name'] for c in inspector.get_columns('player')}
    with op.batch_alter_table('player', schema=None) as batch_op:
        if 'timezone' not in have:
            batch_op.add_column(sa.Column('timezone', sa.String(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('timezone')

    with op.batch_alter_table('phase', schema=None) as batch_op:
        batch_op.drop_column('calendar_sequence')

    with op.batch_alter_table('holder', schema=None) as batch_op:
        batch_op.drop_column('absence_days_used')

    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_column('master_secret_hash')
        batch_op.drop_column('master_address')

    with op.batch_alter_table('vote', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_vote_game_id'))

    op.drop_table('vote')
    with op.batch_alter_table('signup_request', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_signup_request_status'))
        batch_op.drop_index(batch_op.f('ix_signup_request_game_id'))
        batch_op.drop_index(batch_op.f('ix_signup_request_address'))

    op.drop_table('signup_request')
    with op.batch_alter_table('seat_entry', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seat_entry_game_id'))

    op.drop_table('seat_entry')
    with op.batch_alter_table('absence', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_absence_player_id'))

    op.drop_table('absence')
