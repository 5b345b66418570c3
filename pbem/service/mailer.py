"""Writing a mail into the outbox: one recipient per row, so that a retry never
sends the same mail twice to someone who already has it."""

from __future__ import annotations

import email.utils
import json
from typing import TYPE_CHECKING, Literal, Sequence

from sqlmodel import Session

from pbem.core import registry
from pbem.core.codec import canonical_json
from pbem.core.i18n import Message
from pbem.core.rules import Rules, View
from pbem.db.models import Game
from pbem.mail.compose import Attachment, compose
from pbem.service import limits, outbox, threads, tokens
from pbem.service.context import Context

if TYPE_CHECKING:
    from pbem.service.holders import Roster


def subject(game: Game | None, what: str, turn: int | None = None, lang: str = "en") -> str:
    """``[pbem] k42 turn 7 — report``: stable, so mail clients thread it; a game that calls its
    turns otherwise says its own word (Arditi: ``a1 round 2``, ``a1 mano 2``), as its report and map do."""
    parts = ["[pbem]"]
    if game is not None:
        parts.append(game.id)
    if turn is not None:
        parts.append(f"{_turn_word(game, lang)} {turn}")
    return " ".join(parts) + f" — {what}"


def _turn_word(game: Game | None, lang: str) -> str:
    catalog = getattr(registry.get(game.kind), "catalog", None) if game is not None else None
    if catalog is not None and catalog.has("subject-turn", lang):
        return str(catalog.text(Message("subject-turn"), lang))
    return "turno" if lang == "it" else "turn"


def from_header(ctx: Context) -> str:
    """``"Club PBEM" <pbem@club.example.org>``: the club's name (``server.name``) shows in
    players' mail clients; the address alone is what they answer to."""
    return email.utils.formataddr((ctx.config.server.name, ctx.config.server.address))


def queue(session: Session, ctx: Context, *, to: str, subject: str, text: str, kind: str,
          game: Game | None, attachments: Sequence[Attachment] = (), in_reply_to: str | None = None,
          references: Sequence[str] = (),
          auto_submitted: Literal["auto-generated", "auto-replied"] = "auto-generated",
          reply_to: str | None = None, seat: str | None = None, roster: Roster | None = None,
          budget: limits.Budget | None = None) -> str | None:
    """Compose and enqueue one mail; its Message-ID. With ``security.reply_tokens`` a mail to a seat's
    address carries ``Reply-To: <the seat's token address>`` (unless ``reply_to`` is given).
    A mail to a seat's player joins the seat's thread (`pbem.service.threads`): the first one
    (the welcome) is its root, the others name the root first in References; ``seat`` says
    which seat where the player holds two in one game. ``roster``: ``game``'s holders read
    once for a batch of mails (`pbem.service.holders.Roster`), the same answers. ``budget``: an
    answer's caps, counted by the INSERT that queues it (`outbox.enqueue`): one reached,
    nothing is queued (None)."""
    own_id: str | None = None
    used: bool | None = None
    if roster is not None and game is not None:
        reply_to = reply_to or roster.reply_to(ctx, to)
        root = roster.root(to, seat)
    elif game is not None:
        reply_to, root, used = _thread(session, ctx, game, to, reply_to, seat,
                                       queued=in_reply_to is None and not references)
    else:
        reply_to = reply_to or tokens.reply_to_for(session, ctx, game, to)
        root = None
    if root is not None:
        fresh = in_reply_to is None and not references  # the root is its Message-ID, if still free
        if fresh and used is None:
            used = roster.taken(root) if roster is not None else threads.taken(session, root)
        if fresh and not used:
            own_id = root
            if roster is not None:
                roster.use(root)
        else:
            in_reply_to, references = in_reply_to or root, [root, *references]
    message_id, raw = compose(
        sender=from_header(ctx), to=to, subject=subject, text=text, attachments=tuple(attachments),
        message_id=own_id, in_reply_to=in_reply_to, references=tuple(references), auto_submitted=auto_submitted,
        game_id=game.id if game is not None else None, domain=ctx.config.server.domain, date=ctx.now(),
        extra_headers=(("Reply-To", reply_to),) if reply_to else ())
    queued = outbox.enqueue(session, ctx, message_id=message_id, raw=raw, recipients=[to], subject=subject, kind=kind,
                            game_id=game.id if game is not None else None, budget=budget)
    return message_id if queued is not None else None


def _thread(session: Session, ctx: Context, game: Game, to: str, reply_to: str | None, seat: str | None,
            queued: bool) -> tuple[str | None, str | None, bool | None]:
    """The Reply-To (`tokens.reply_to_for`, unless given), the thread's root
    (`threads.root_for`) and, with ``queued``, whether it is queued (`threads.taken`; None:
    ask) of a mail to ``to`` about ``game``, from one statement (`threads.at`) instead of up
    to three; none for an answer to a seat's player whose seat and holders the transaction
    has read already (an order mail's: `holders.everyone` keeps them for the transaction)."""
    want = to.strip().lower()
    known = threads.seat_read(session, game, seat) if seat is not None and not queued else None
    if known is not None and (reply_to or not ctx.config.security.reply_tokens):
        from pbem.service import holders  # holders queues its mails here

        mine = [h for h in holders.everyone(session, known) if h.address == want]
        root = (threads.root_id(game, known.name, mine[0].id, ctx.config.server.domain)
                if len(mine) == 1 and mine[0].id is not None else None)
        return reply_to or None, root, None
    rows = threads.at(session, game, {to.lower(), want}, ctx.config.server.domain, queued)
    if not reply_to:
        listed = [holder for holder, _, _, _ in rows if holder.address == to.lower() and holder.status != "removed"]
        reply_to = (tokens.reply_address(session, ctx, listed[0])
                    if ctx.config.security.reply_tokens and len(listed) == 1 else None)
    picked = threads.pick(rows, to, seat)
    return reply_to, (picked[2] if picked is not None else None), (picked[3] if picked is not None else None)


def drawn(view: View, lang: str) -> View:
    """The view as the map draws it: in the reader's language, whoever the reader is."""
    return {**{k: v for k, v in view.items() if k != "viewer"}, "lang": lang}


def map_key(view: View, lang: str) -> str:
    """Seats that see the same board in the same language share one drawing."""
    return canonical_json(drawn(view, lang))


def attachments(game: Game, view: View, stem: str, png: bytes) -> list[Attachment]:
    """The map and the seat's view as JSON, as every report and map mail carries them."""
    data = json.dumps(view, indent=1, ensure_ascii=False).encode("utf-8")
    return [Attachment(f"{game.id}-{stem}.png", "image/png", png),
            Attachment(f"{game.id}-{stem}.json", "application/json", data)]


class MapCache:
    """Draws maps inline, once per distinct drawing (welcome mails, the MAP command)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._png: dict[str, bytes] = {}

    def png(self, rules: Rules, view: View, lang: str = "en") -> bytes:
        key = map_key(view, lang)
        if key not in self._png:
            from pbem.render.raster import svg_to_png

            self._png[key] = svg_to_png(rules.render({**view, "lang": lang}), width=self._ctx.width)
        return self._png[key]

    def attachments(self, rules: Rules, game: Game, view: View, stem: str, lang: str = "en") -> list[Attachment]:
        return attachments(game, view, stem, self.png(rules, view, lang))
