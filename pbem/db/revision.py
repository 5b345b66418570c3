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


def main(argv: list[str]) -> int:
    from alembic import command

    from pbem.db import schema

    if len(argv) != 1 or not argv[0].strip():
        print('usage: python -m pbem.db.revision "what changed"', file=sys.stderr)
        return 64
    message = argv[0].strip()
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
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
