"""What became of an inbound mail, and how it is answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from pbem.db.models import Game
from pbem.mail.compose import reply_subject
from pbem.mail.parse import IncomingMail
from pbem.mail.quote import safe_quote
from pbem.service import limits, mailer
from pbem.service.context import Context
from pbem.service.texts import t


#: How much of a stranger's word (a game id, a seat name, an address) an answer repeats.
SHORT = 24
#: How much of a bad order line a refusal quotes back.
LINE = 80

def quote(text: str | None, limit: int = LINE) -> str:
    """What an answer may repeat of outside text: a short prefix, bidi controls and other
    control characters neutralised, an ellipsis where it was cut. Linear in ``limit``."""
    return safe_quote(text or "", limit)


def line_label(line: int, lang: str) -> str:
    """``line 4 of your orders`` (counted from the block's GAME line, see `pbem.mail.envelope`);
    line 0 is the mail as a whole."""
    return t("reply.line", lang, line=line) if line else t("reply.mail", lang)


@dataclass(frozen=True)
class Handled:
    """What became of one inbound mail."""

    status: str  # orders | command | refused | ignored | duplicate | error
    note: str = ""
    game_id: str | None = None
    inbound_id: int | None = None
    seat: str | None = None  # of orders filed: the daemon's log line names it without a query


#: How many of the mail's References an answer carries on (the newest; threading needs few).
MAX_REFERENCES = 20


@dataclass
class Reply:
    """The context for answering one mail. ``trusted`` turns true once the mail has passed
    authentication: from then on its answers spend the player's budget, before that the
    strangers' (see `pbem.service.limits`)."""

    session: Session
    ctx: Context
    mail: IncomingMail
    game: Game | None = None
    lang: str = "en"
    trusted: bool = False
    seat: str | None = None  # the seat the mail acts for, once known: its answers join that seat's thread

    def send(self, to: str, subject_what: str, text: str, *, kind: str | None = None, attachments: Any = (),
             turn: int | None = None, unlimited: bool = False, thread: bool = True) -> bool:
        """Queue the answer; False when the reply limits hold it back (the loop breaker).
        ``unlimited``: an answer that must never be held back (the mail carrying a new secret).
        ``thread=False``: no In-Reply-To/References to a mail its reader may never have seen (a
        stranger's); a mail to a seat's player still joins that seat's thread (`mailer.queue`).
        Threaded, References keep the chain: the seat's root, the mail's own References, the mail."""
        kind = kind or (limits.AUTHENTICATED if self.trusted else limits.STRANGER)
        caps = None if unlimited else limits.budget(self.ctx, to, kind)
        if caps is not None and caps.closed:  # no answer of this kind at all: logged, nothing composed
            limits.spent(self.session, self.ctx, caps)
            return False
        subject = mailer.subject(self.game, subject_what, turn, self.lang)
        if self.trusted and self.mail.subject and to.lower() == (self.mail.sender or "").lower():
            subject = reply_subject(self.mail.subject) if self.mail.subject.startswith("[pbem]") else subject
        parent = self.mail.written_id or self.mail.message_id
        refs = [*self.mail.references, parent] if parent else list(self.mail.references)
        # the caps are counted by the INSERT that queues the answer: one round trip, not two
        queued = mailer.queue(self.session, self.ctx, to=to, subject=subject, text=text, kind=kind, game=self.game,
                              attachments=attachments, in_reply_to=(parent or None) if thread else None,
                              references=refs[-MAX_REFERENCES:] if thread else (), auto_submitted="auto-replied",
                              seat=self.seat, budget=caps)
        return queued is not None
