"""The schema of the first release with migrations; adopts every older database.

A database made before Alembic (by `create_all` and the additive upgrades that ran at
every start) has no version row. This revision brings any such database, SQLite or
PostgreSQL, to the schema below: the tables and indexes it lacks are made, the columns
it lacks are added in place (each new column of that time was nullable or has a plain
default), and every seat from before teams gets its player as first holder. On an empty
database it simply makes the schema. Each step checks first, so it is safe on a database
half-way through an older upgrade.

The tables are a frozen copy (the models as they were then): later changes to
`pbem.db.models` belong in later revisions, never here.

Revision ID: 0001
Revises:
Create Date: 2026-11-26
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

log = logging.getLogger("pbem.db.migrations")


def _tables(md: sa.MetaData) -> None:
    sa.Table('counter', md,
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('value', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('name')
    )
    sa.Table('game', md,
        sa.Column('id', sa.String(), nullable=False),
        sa.Column('kind', sa.String(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('rules_version', sa.String(), nullable=False),
        sa.Column('options_json', sa.Text(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('timezone', sa.String(), nullable=False),
        sa.Column('turn_seconds', sa.Integer(), nullable=False),
        sa.Column('policy_json', sa.Text(), nullable=False),
        sa.Column('seed_hex', sa.String(), nullable=False),
        sa.Column('commitment', sa.String(), nullable=False),
        sa.Column('seed_revealed', sa.Boolean(), nullable=False),
        sa.Column('initial_state_json', sa.Text(), nullable=False),
        sa.Column('state_json', sa.Text(), nullable=False),
        sa.Column('phase_seq', sa.Integer(), nullable=False),
        sa.Column('roll_counter', sa.Integer(), nullable=False),
        sa.Column('head_hash', sa.String(), nullable=False),
        sa.Column('outcome_json', sa.Text(), nullable=False),
        sa.Column('paused_remaining', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('inbound', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('dedupe_key', sa.String(), nullable=False),
        sa.Column('message_id', sa.String(), nullable=False),
        sa.Column('sender', sa.String(), nullable=False),
        sa.Column('subject', sa.String(), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('received_at', sa.DateTime(), nullable=True),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=True),
        sa.Column('note', sa.Text(), nullable=False),
        sa.Column('raw', sa.LargeBinary(), nullable=True),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('outbox', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sa.String(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=True),
        sa.Column('kind', sa.String(), nullable=False),
        sa.Column('mail_from', sa.String(), nullable=False),
        sa.Column('recipients_json', sa.Text(), nullable=False),
        sa.Column('subject', sa.String(), nullable=False),
        sa.Column('raw', sa.LargeBinary(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('sent_at', sa.DateTime(), nullable=True),
        sa.Column('bounced_at', sa.DateTime(), nullable=True),
        sa.Column('bounce_status', sa.String(), nullable=False),
        sa.Column('bounce_diagnostic', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('player', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('language', sa.String(), nullable=False),
        sa.Column('bouncing_since', sa.DateTime(), nullable=True),
        sa.Column('bounce_notified_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('refusal_notice', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('seat', sa.String(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('reason', sa.String(), nullable=False),
        sa.Column('sent_at', sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('setting', md,
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('value', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('name')
    )
    sa.Table('event', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('phase_seq', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(), nullable=False),
        sa.Column('data_json', sa.Text(), nullable=False),
        sa.Column('to_json', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('phase', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('turn', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('awaiting_json', sa.Text(), nullable=False),
        sa.Column('sealed', sa.Boolean(), nullable=False),
        sa.Column('decision', sa.Boolean(), nullable=False),
        sa.Column('opened_at', sa.DateTime(), nullable=True),
        sa.Column('deadline', sa.DateTime(), nullable=True),
        sa.Column('reminders_sent', sa.Integer(), nullable=False),
        sa.Column('resolved_at', sa.DateTime(), nullable=True),
        sa.Column('orders_digest', sa.String(), nullable=False),
        sa.Column('rolls_start', sa.Integer(), nullable=False),
        sa.Column('rolls_count', sa.Integer(), nullable=False),
        sa.Column('state_hash', sa.String(), nullable=False),
        sa.Column('prev_hash', sa.String(), nullable=False),
        sa.Column('hash', sa.String(), nullable=False),
        sa.Column('state_json', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'seq')
    )
    sa.Table('report_job', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('first_seq', sa.Integer(), nullable=False),
        sa.Column('last_seq', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=True),
        sa.Column('done_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('roll', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('phase_seq', sa.Integer(), nullable=False),
        sa.Column('counter', sa.Integer(), nullable=False),
        sa.Column('purpose', sa.String(), nullable=False),
        sa.Column('sides', sa.Integer(), nullable=False),
        sa.Column('value', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'counter')
    )
    sa.Table('seat', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('secret_hash', sa.String(), nullable=False),
        sa.Column('language', sa.String(), nullable=False),
        sa.Column('misses', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('game_id', 'name')
    )
    sa.Table('sheet', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('phase_seq', sa.Integer(), nullable=False),
        sa.Column('seat', sa.String(), nullable=False),
        sa.Column('raw_text', sa.Text(), nullable=False),
        sa.Column('orders_json', sa.Text(), nullable=False),
        sa.Column('canonical', sa.Text(), nullable=False),
        sa.Column('receipt', sa.String(), nullable=False),
        sa.Column('superseded', sa.Boolean(), nullable=False),
        sa.Column('source', sa.String(), nullable=False),
        sa.Column('sender', sa.String(), nullable=False),
        sa.Column('mail_date', sa.DateTime(), nullable=True),
        sa.Column('inbound_id', sa.Integer(), nullable=True),
        sa.Column('received_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.PrimaryKeyConstraint('id')
    )
    sa.Table('holder', md,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('seat_id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(), nullable=False),
        sa.Column('secret_hash', sa.String(), nullable=False),
        sa.Column('language', sa.String(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('joined_at', sa.DateTime(), nullable=True),
        sa.Column('left_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'], ),
        sa.ForeignKeyConstraint(['seat_id'], ['seat.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('seat_id', 'address')
    )


#: (name, table, columns, unique), as `create_all` named them then
INDEXES = [
    ('ix_game_kind', 'game', ('kind',), False),
    ('ix_game_status', 'game', ('status',), False),
    ('ix_inbound_dedupe_key', 'inbound', ('dedupe_key',), True),
    ('ix_outbox_game_id', 'outbox', ('game_id',), False),
    ('ix_outbox_message_id', 'outbox', ('message_id',), True),
    ('ix_outbox_status', 'outbox', ('status',), False),
    ('ix_player_address', 'player', ('address',), True),
    ('ix_refusal_notice_game_id', 'refusal_notice', ('game_id',), False),
    ('ix_event_game_id', 'event', ('game_id',), False),
    ('ix_phase_game_id', 'phase', ('game_id',), False),
    ('ix_report_job_game_id', 'report_job', ('game_id',), False),
    ('ix_report_job_status', 'report_job', ('status',), False),
    ('ix_roll_game_id', 'roll', ('game_id',), False),
    ('ix_seat_address', 'seat', ('address',), False),
    ('ix_seat_game_id', 'seat', ('game_id',), False),
    ('ix_sheet_game_id', 'sheet', ('game_id',), False),
    ('ix_sheet_phase_seq', 'sheet', ('phase_seq',), False),
    ('ix_holder_address', 'holder', ('address',), False),
    ('ix_holder_game_id', 'holder', ('game_id',), False),
    ('ix_holder_seat_id', 'holder', ('seat_id',), False),
]

#: A seat without any holder row is a seat from before teams: its own columns are its
#: one player. Holder rows are never deleted, so this never matches a seat made since.
SEED_HOLDERS = """
INSERT INTO holder (seat_id, game_id, player_id, address, secret_hash, language, status, joined_at)
SELECT seat.id, seat.game_id, seat.player_id, lower(seat.address), seat.secret_hash, seat.language, 'active',
       (SELECT game.created_at FROM game WHERE game.id = seat.game_id)
FROM seat
WHERE NOT EXISTS (SELECT 1 FROM holder WHERE holder.seat_id = seat.id)
"""


def metadata() -> sa.MetaData:
    md = sa.MetaData()
    _tables(md)
    for name, table, columns, unique in INDEXES:
        sa.Index(name, *(md.tables[table].c[c] for c in columns), unique=unique)
    return md


def _column_default(column: sa.Column) -> str | None:  # type: ignore[type-arg]
    """The DEFAULT clause a column added to rows already there needs (None: NULL is fine)."""
    if column.nullable:
        return None
    if isinstance(column.type, sa.Boolean):
        return "FALSE"
    if isinstance(column.type, sa.Integer):
        return "0"
    if isinstance(column.type, (sa.String, sa.Text)):
        return "''"
    raise RuntimeError(f"column {column.table.name}.{column.name} cannot be added to existing rows")


def upgrade() -> None:
    bind = op.get_bind()
    md = metadata()
    inspector = sa.inspect(bind)
    existing = set(inspector.get_table_names())
    for table in md.sorted_tables:
        if table.name not in existing:
            continue
        have = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in have:
                continue
            kind = column.type.compile(dialect=bind.dialect)
            default = _column_default(column)
            clause = f" DEFAULT {default} NOT NULL" if default is not None else ""
            op.execute(f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {kind}{clause}')
            log.warning("database upgraded: added column %s.%s", table.name, column.name)
        indexes = {i["name"] for i in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                index.create(bind)
                log.warning("database upgraded: added index %s", index.name)
    md.create_all(bind, checkfirst=True)
    made = bind.execute(sa.text(SEED_HOLDERS)).rowcount or 0
    if made:
        log.warning("database upgraded: %d seat(s) from before teams now have their player as first holder", made)


def downgrade() -> None:
    raise RuntimeError("the first revision cannot be undone: restore a backup instead")
