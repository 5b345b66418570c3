"""Write a new migration from the difference between the models and the newest revision:
``python -m pbem.db.revision "what changed"`` (docs/operations.md, "A new revision").

It builds a scratch SQLite database by running every revision, compares it with
`pbem.db.models` (Alembic's autogenerate) and writes ``pbem/db/migrations/versions/
NNNN_<slug>.py``. Read what it wrote before committing: autogenerate cannot see a
renamed column (it writes a drop and an add) and gives new NOT NULL columns no default
for the rows already there (add ``server_default``).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from sqlalchemy import create_engine


def write(message: str) -> Path | None:
    """Autogenerate the next revision from the models; the file written."""
    from alembic import command

    from pbem.db import schema

    message = message.strip()
    number = f"{int(schema.head()) + 1:04d}"
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40]
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite:///{Path(tmp) / 'scratch.sqlite'}")
        with engine.begin() as conn:
            command.upgrade(schema.alembic_config(conn), "head")
            script = command.revision(schema.alembic_config(conn), message=message, autogenerate=True,
                                      rev_id=number)
        engine.dispose()
    path = getattr(script, "path", None)
    if path is not None and slug:
        target = Path(path).with_name(f"{number}_{slug}.py")
        Path(path).rename(target)
        path = target
    return Path(path) if path is not None else None


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].strip():
        sys.stderr.write('usage: python -m pbem.db.revision "what changed"\n')
        return 64
    sys.stdout.write(f"wrote {write(argv[0])}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
