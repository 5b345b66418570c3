"""An order mail's sheets found by game and phase (issue 17): the read of a phase's sheets on
file (`pbem.service.inbound.read_table`) joined them on the phase's own index, reading every
game's sheets of that phase number (~0.2 ms a mail among 200 games, growing with the games);
on an index of game, phase and seat it reads the game's own.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 17:50:00
"""

from __future__ import annotations

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # IF NOT EXISTS: a database made from newer models has it already
    op.execute("CREATE INDEX IF NOT EXISTS ix_sheet_game_phase ON sheet (game_id, phase_seq, seat)")


def downgrade() -> None:
    op.drop_index('ix_sheet_game_phase', table_name='sheet')
