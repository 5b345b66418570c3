"""What became of an inbound mail, and how it is answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from pbem.db.models import Game
from pbem.mail.compose import reply_subject
from pbem.mail.parse import IncomingMail
from pbem.service import limits, mailer
from pbem.service.context import Context


@dataclass(frozen=True)
class Handled:
    """What became of one inbound mail."""

    status: str  # orders | command | refused | ignored | duplicate | error
    note: str = ""
    game_id: str | None = None
    inbound_id: int | None = None


@dataclass
class Reply:
    """The context for answering one mail."""

    session: Session
    ctx: Context
    mail: IncomingMail
    game: Game | None = None
    lang: str = "en"

    def send(self, to: str, subject_what: str, text: str, *, kind: str = "reply", attachments: Any = (),
             turn: int | None = None) -> bool:
        """Queue the answer; False when the reply limits hold it back (the loop breaker)."""
        if not limits.allow_reply(self.session, self.ctx, to):
            return False
        subject = mailer.subject(self.game, subject_what, turn, self.lang)
        if self.mail.subject and to.lower() == (self.mail.sender or "").lower():
            subject = reply_subject(self.mail.subject) if self.mail.subject.startswith("[pbem]") else subject
        refs = [*self.mail.references, self.mail.message_id] if self.mail.message_id else list(self.mail.references)
        mailer.queue(self.session, self.ctx, to=to, subject=subject, text=text, kind=kind, game=self.game,
                     attachments=attachments, in_reply_to=self.mail.message_id or None, references=refs,
                     auto_submitted="auto-replied")
        return True
