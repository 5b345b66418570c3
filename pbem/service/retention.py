"""Raw mail is kept whole only as long as the pipeline needs it (``retention.raw_mail``,
default 30 days). An outgoing mail is whole in the outbox (encrypted: a welcome holds the
seat's secret) while it may still be sent or retried; once it was sent, failed or was
dropped and is older than the retention, its bytes are replaced by a copy with every
secret redacted (`pbem.service.atrest.redact_mail`), which is what the archive keeps.
Inbound mail is stored redacted from the start (`pbem.service.inbound`).

The daemon runs `purge` about once an hour. Rows are taken in id order and the last one
done is remembered (`setting` ``retention.outbox_through``), so each mail is read once.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy.orm import defer
from sqlmodel import col, select

from pbem.config import parse_duration
from pbem.db.models import OutboxMail, Setting
from pbem.service import atrest, claims
from pbem.service.context import Context

log = logging.getLogger(__name__)

THROUGH = "retention.outbox_through"
FINAL = ("sent", "failed", "dropped")
BATCH = 200
#: run by the daemon at most this often
INTERVAL = timedelta(hours=1)
#: The advisory lock of the purge (`claims.once_at_a_time`; the kinds there end at PBEM + 5):
#: workers started together each run it, and only one may write the mark at a time.
RETENTION = claims.PBEM + 6
#: The rows are read without their bytes: a row is decrypted only to be redacted. The batch
#: past the mark is mostly mail still inside the retention (the run stops at the first such
#: row), and reading it whole decrypted up to BATCH mails, maps attached, every hour for nothing.
_NO_RAW = defer(OutboxMail.raw)  # type: ignore[arg-type]  # SQLModel types the column as bytes


def purge(ctx: Context) -> int:
    """Redact the outgoing mails past the retention; returns how many were rewritten."""
    cutoff = ctx.now() - parse_duration(ctx.config.retention.raw_mail)
    done = 0
    while True:
        with ctx.session() as s:
            if not claims.once_at_a_time(s, RETENTION):
                break  # another worker purges now; the next hour's run goes on from its mark
            mark = s.get(Setting, THROUGH) or Setting(name=THROUGH, value="0")
            through = int(mark.value or 0)
            rows = s.exec(select(OutboxMail).options(_NO_RAW).where(col(OutboxMail.id) > through)
                          .order_by(col(OutboxMail.id)).limit(BATCH)).all()
            last = through
            for row in rows:
                when = row.sent_at or row.created_at
                if row.status not in FINAL or when is None or when > cutoff:
                    break  # mail is queued in id order: what follows is newer or still in hand
                redacted = atrest.redact_mail(row.raw)  # loads and opens this row's bytes alone
                if redacted != row.raw:
                    row.raw = redacted
                    s.add(row)
                    done += 1
                last = row.id or last
            mark.value = str(last)
            s.add(mark)
            s.commit()
        if last == through or len(rows) < BATCH:
            break
    if done:
        log.info("retention: %d outgoing mail(s) older than %s kept with their secrets redacted", done,
                 ctx.config.retention.raw_mail)
    return done
