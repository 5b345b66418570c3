"""Press (architecture 2.8, issue "Observers and press" 2-3): PRESS <seat>[,<seat>…] | ALL in a seat's
signed block, relayed as a mail of its own in each addressee's language with the sender's seat (white)
or "anonymous" (grey), never an address; every holder of an addressed seat gets it, the sender's
team-mates a copy; HISTORY PRESS to those who sent or received it; the archive after the end. Bad
press (no such seat, oneself, a policy that forbids it, an empty, long or attached message, over the
hourly limit, from anyone but the seat's holder) is refused with the reason and nothing is relayed."""

from __future__ import annotations

import dataclasses
import json
from email.message import EmailMessage

from sqlmodel import select

from pbem.db.models import PressRow
from pbem.service import archive, games, inbound, observers, store
from pbem.service.verify import verify_data
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

TEAM = {"red": ["rita@example.org"], "blue": ["bruno@example.org", "bice@example.org"], "green": ["gina@example.org"]}
LANG = {"rita@example.org": "en", "bruno@example.org": "en", "bice@example.org": "it", "gina@example.org": "it"}


def _mania(ctx, **policies: str) -> tuple[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    specs = [games.SeatSpec(seat, people[0], LANG[people[0]],
                            tuple(games.HolderSpec(p, LANG[p]) for p in people[1:])) for seat, people in TEAM.items()]
    game_id = games.create(ctx, "blockmania", "Talkers", specs, policies=policies)
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in LANG}
    return game_id, secrets


def _press(ctx, sender: str, game_id: str, seat: str, secret: str, lines: list[str]):  # type: ignore[no-untyped-def]
    return inbound.handle(ctx, player_mail(sender, order_block(game_id, seat, secret, lines), subject="press"))


def _rows(ctx) -> list[PressRow]:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return list(s.exec(select(PressRow)))


def test_white_press_reaches_every_holder_and_the_senders_team_mates(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = _mania(ctx)
    rita, bruno, bice, gina = "rita@example.org", "bruno@example.org", "bice@example.org", "gina@example.org"
    mark = outbox(ctx)[-1].id or 0
    sent = _press(ctx, rita, game_id, "red", secrets[rita], ["PRESS blue", "Shall we share the ring?", "", "# yes, this too"])
    assert (sent.status, sent.note) == ("command", "press to 1 seats")
    relayed = outbox(ctx, kind="press", after=mark)
    assert sorted(a for r in relayed for a in json.loads(r.recipients_json)) == [bice, bruno]  # every holder of blue
    for row in relayed:
        text = text_of(row)
        assert "Shall we share the ring?\n\n# yes, this too" in text.replace("\r\n", "\n")
        assert rita not in text and rita not in row.raw.decode("utf-8", "replace")  # never an address
    by = {json.loads(r.recipients_json)[0]: text_of(r) for r in relayed}
    assert "from Red to Blue" in by[bruno] and "da Rosso (red) a Blu (blue)" in by[bice]  # in the addressee's language
    assert "your message went to Blue" in text_of(outbox(ctx, to=rita, kind="reply")[-1])
    assert not outbox(ctx, to=gina, kind="press", after=mark)
    # STAMPA TUTTI from a team: the other seats get it, the sender's team-mate a copy naming him
    mark = outbox(ctx)[-1].id or 0
    assert _press(ctx, bruno, game_id, "blue", secrets[bruno], ["STAMPA TUTTI", "Nessun patto."]).status == "command"
    got = {json.loads(r.recipients_json)[0]: text_of(r) for r in outbox(ctx, kind="press", after=mark)}
    assert set(got) == {rita, gina, bice}
    assert "from Blue to every seat" in got[rita] and "da Blu (blue) a tutti i posti" in got[gina]
    assert bruno in got[bice] and "copia" in got[bice]  # the team-mate knows who spoke for the seat
    assert bruno not in got[rita] and bruno not in got[gina]
    # HISTORY PRESS: to those who sent or received
    for address, seat, expected in ((gina, "green", 1), (rita, "red", 2), (bice, "blue", 2)):
        assert _press(ctx, address, game_id, seat, secrets[address], ["HISTORY PRESS"]).status == "command"
        history = text_of(outbox(ctx, to=address, kind="reply")[-1])
        assert history.count("Nessun patto.") == 1
        assert ("Shall we share the ring?" in history) == (expected == 2), (seat, history)


def test_grey_press_hides_the_sender_and_records_it(ctx, duel, tmp_path) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    with ctx.session() as s:
        game = store.get_game(s, game_id)
        game.policy_json = json.dumps({**json.loads(game.policy_json), "press": "grey"})
        s.add(game)
        s.commit()
    pasted = f"My secret is {secrets['red']} - do not tell."  # a player may paste anything: it is sent on
    assert _press(ctx, RED, game_id, "red", secrets["red"], ["PRESS blue", pasted]).status == "command"
    (mail,) = outbox(ctx, to=BLUE, kind="press")
    text = text_of(mail)
    assert "da anonimo a blue" in text and pasted in text
    assert " red" not in text.split("\n", 1)[0] and RED not in mail.raw.decode("utf-8", "replace")
    (row,) = _rows(ctx)
    assert (row.sender_seat, row.sender_address, row.mode) == ("red", RED, "grey")  # recorded
    assert _press(ctx, BLUE, game_id, "blue", secrets["blue"], ["STORIA STAMPA"]).status == "command"
    assert "da anonimo" in text_of(outbox(ctx, to=BLUE, kind="reply")[-1])
    assert _press(ctx, RED, game_id, "red", secrets["red"], ["HISTORY PRESS"]).status == "command"
    assert "from red to blue" in text_of(outbox(ctx, to=RED, kind="reply")[-1])
    # not in the archive before the end; after it, anonymous still
    assert "press" not in archive.archive_data(ctx, game_id)
    for seat, address in (("red", RED), ("blue", BLUE)):  # a turn played, then the game ends
        assert _press(ctx, address, game_id, seat, secrets[seat], ["PLAY 2"]).status == "orders"
    with ctx.session() as s:
        from pbem.service import votes

        votes.end_game(s, ctx, store.get_game(s, game_id), "draw", [], "game_master")
        s.commit()
    data = archive.archive_data(ctx, game_id)
    (published,) = data["press"]
    assert published["from"] is None and published["to"] == ["blue"] and published["text"] == pasted
    assert RED not in json.dumps(data["press"])  # seats, never addresses
    assert verify_data(data).ok  # the archive with its press still verifies
    page = archive.export(ctx, game_id, tmp_path / "archive").read_text(encoding="utf-8")
    assert "<h2>Press</h2>" in page and "anonymous to blue" in page and RED not in page


def _attached(sender: str, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "pbem@localhost", "press"
    msg["Message-ID"] = "<attached-press@example.org>"
    msg.set_content(body)
    msg.add_attachment(b"%PDF-1.4 plans", maintype="application", subtype="pdf", filename="plans.pdf")
    return bytes(msg)


def test_bad_press_is_refused_and_nothing_relayed(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    red = secrets["red"]
    cases = [
        (RED, red, ["PRESS green", "hi"], "there is no seat green"),
        (RED, red, ["PRESS red", "hi"], "to your own seat"),
        (RED, red, ["PRESS blue"], "the message is empty"),
        (RED, red, ["PRESS blue", *["x" * 900] * 5], "more than 4000"),
        (RED, red, ["PRESS", "hi"], "to whom"),
        (RED, red, ["PLAY 2", "PRESS blue", "hi"], "cannot be mixed with orders"),
    ]
    for sender, secret, lines, answer in cases:
        result = _press(ctx, sender, game_id, "red", secret, lines)
        assert result.status == "refused", lines
        assert answer in text_of(outbox(ctx, to=RED)[-1]), (lines, text_of(outbox(ctx, to=RED)[-1]))
    attached = inbound.handle(ctx, _attached(RED, order_block(game_id, "red", red, ["PRESS blue", "see the file"])))
    assert attached.status == "refused" and "has attachments (1)" in text_of(outbox(ctx, to=RED)[-1])
    # from an observer, or with the seat's secret from another address: nobody is relayed anything
    assert "now watches" in observers.add(ctx, game_id, "olga@example.org")
    assert _press(ctx, "olga@example.org", game_id, "red", "aaaa-bbbb-cccc", ["PRESS blue", "hi"]).status == "refused"
    assert _press(ctx, "mallory@evil.example", game_id, "red", red, ["PRESS blue", "hi"]).status == "refused"
    # the policy: none, broadcast-only, press_in=orders in a sealed phase (every Duel phase is)
    for policy, lines, answer in ((("press", "none"), ["PRESS blue", "hi"], "press is off"),
                                  (("press", "broadcast-only"), ["PRESS blue", "hi"], "PRESS ALL"),
                                  (("press_in", "orders"), ["PRESS ALL", "hi"], "while play waits")):
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            game.policy_json = json.dumps({**json.loads(game.policy_json), policy[0]: policy[1]})
            s.add(game)
            s.commit()
        assert _press(ctx, RED, game_id, "red", red, lines).status == "refused", policy
        assert answer in text_of(outbox(ctx, to=RED)[-1]), policy
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            game.policy_json = json.dumps({k: v for k, v in json.loads(game.policy_json).items() if k != policy[0]})
            s.add(game)
            s.commit()
    assert not _rows(ctx) and not outbox(ctx, kind="press")
    assert not [r for r in outbox(ctx, to="olga@example.org") if r.kind != "observer"]


def test_press_counts_against_the_senders_hourly_limit(ctx, clock, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    ctx.config = dataclasses.replace(ctx.config, limits=dataclasses.replace(ctx.config.limits, per_sender_per_hour=6))
    statuses = [_press(ctx, RED, game_id, "red", secrets["red"], ["PRESS blue", f"message {i}"]).status for i in range(5)]
    # each message and its answer count: three go, the fourth is refused (and its refusal is the sixth answer)
    assert statuses == ["command", "command", "command", "refused", "refused"]
    assert len(_rows(ctx)) == 3 and len(outbox(ctx, to=BLUE, kind="press")) == 3
    assert "as an hour allows (6)" in text_of(outbox(ctx, to=RED, kind="reply")[-1])
    clock.advance(hours=1, minutes=1)
    assert _press(ctx, RED, game_id, "red", secrets["red"], ["PRESS blue", "later"]).status == "command"
