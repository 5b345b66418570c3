"""Teams and the security layers: each holder of a seat has a secret and a reply address
of their own; a team-mate's reply address is refused like another seat's, and the notice
goes to the sender alone; and no mail of a played team game shows a holder another
holder's secret or reply address (nor another seat's)."""

from __future__ import annotations

import re

from pbem.service import games
from pbem.service.secrets import normalise
from tests.security.support import orders_mail, recipients, reply_to, send, sheets
from tests.service.helpers import BLUE, outbox, text_of
from tests.support.players import parse, secret_from_welcome

ANNA, BEPPE = "anna@example.org", "beppe@example.org"


def _team(ctx):  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Team security", [games.SeatSpec.parse(f"red={ANNA},{BEPPE}:it"),
                                                         games.SeatSpec("blue", BLUE, "it")])
    welcome = {a: outbox(ctx, to=a, kind="welcome")[0] for a in (ANNA, BEPPE, BLUE)}
    secrets = {a: secret_from_welcome(text_of(w)) for a, w in welcome.items()}
    tokens = {a: reply_to(w) for a, w in welcome.items()}
    return game_id, secrets, tokens


def test_each_holder_has_an_own_reply_address_and_a_team_mates_is_refused(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    game_id, secrets, tokens = _team(ctx)
    assert len(set(tokens.values())) == 3 and all(t and t.startswith("pbem+") for t in tokens.values())
    result = send(ctx, orders_mail(ANNA, game_id, "red", secrets[ANNA], to=tokens[BEPPE]))
    assert (result.status, result.note) == ("refused", "token-other-holder")
    notice = outbox(ctx, kind="refusal")[-1]
    assert recipients(notice) == [ANNA] and "another player of your seat" in text_of(notice)
    assert sheets(ctx) == []
    assert send(ctx, orders_mail(ANNA, game_id, "red", secrets[ANNA], to=tokens[ANNA])).status == "orders"
    assert send(ctx, orders_mail(BEPPE, game_id, "red", secrets[BEPPE], to=tokens[BEPPE])).status == "orders"
    # Every mail to a holder, the team-mate's notices included, carries that holder's own address.
    for row in outbox(ctx):
        assert reply_to(row) == tokens[recipients(row)[0]], row.kind


def _forms(secret: str) -> set[str]:
    return {secret, secret.upper(), normalise(secret)}


def test_no_mail_of_a_team_game_shows_another_holders_secret_or_reply_address(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True, refusal_interval="0s")
    game_id, secrets, tokens = _team(ctx)
    issued = {a: {s} for a, s in secrets.items()}
    seat_of = {ANNA: "red", BEPPE: "red", BLUE: "blue"}

    def mail(sender, lines, secret=None, to="pbem@localhost"):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(sender, game_id, seat_of[sender], secret or secrets[sender], lines, to=to))

    for sender in (ANNA, BEPPE, BLUE):
        for line in ("STATUS", "MAP", "ORDERS", "HISTORY", "HELP", "LEAVE"):
            assert mail(sender, [line]).status == "command"
    assert mail(ANNA, ["PLAY 1"], secret=secrets[BEPPE]).status == "refused"
    assert mail(BEPPE, ["PLAY 1"], to=tokens[ANNA]).status == "refused"
    assert send(ctx, orders_mail("mallory@evil.example", game_id, "red", secrets[ANNA])).status == "refused"
    assert mail(BEPPE, ["SECRET NEW"]).status == "command"
    secrets[BEPPE] = secret_from_welcome(text_of(outbox(ctx, to=BEPPE)[-1]))
    issued[BEPPE].add(secrets[BEPPE])
    for turn in range(40):  # play to the end; the team takes turns at the orders
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        for seat in shown["awaiting"]:
            if seat == "blue":
                assert mail(BLUE, ["GIOCA 2"]).status == "orders"
            elif shown["phase"] == "tiebreak":
                assert mail((ANNA, BEPPE)[turn % 2], ["ROLL"]).status == "orders"
            else:
                assert mail((ANNA, BEPPE)[turn % 2], ["PLAY 3"]).status == "orders"
                assert mail((BEPPE, ANNA)[turn % 2], ["PLAY 2"]).status == "orders"  # replaces the team-mate's
    assert games.show_game(ctx, game_id)["status"] == "finished"
    rows = outbox(ctx)
    seen_own = 0
    for row in rows:
        (address,) = recipients(row)
        msg = parse(row.raw)
        text = "\n".join([*(f"{k}: {v}" for k, v in msg.items()),
                          *(p.get_content() for p in msg.walk() if p.get_content_type().startswith("text/"))])
        words = set(re.findall(r"[0-9a-zA-Z-]+", text))
        for other, secret_set in issued.items():
            if other == address:
                seen_own += any(s in text for s in secret_set)
                continue
            for secret in secret_set:
                assert not _forms(secret) & words and secret not in text, \
                    f"{other}'s secret in a {row.kind} mail to {address}: {row.subject}"
            assert tokens[other] not in text, f"{other}'s reply address in a {row.kind} mail to {address}"
    assert seen_own >= 4  # the detector is live: welcomes and the new secret
    kinds = {r.kind for r in rows}
    assert kinds >= {"welcome", "reply", "refusal", "report", "notice"} and len(rows) > 40
