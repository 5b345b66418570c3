"""Secrets never leak: not into the logs (at DEBUG, through every layer), and not into
any mail: a played Kriegspiel game's every outbox mail is decoded completely (headers,
text and HTML parts, the JSON view) and searched for any other seat's secret, reply
token and, before the reveal, the other side's sealed deployment; the game master's mails
(the GM secret, answers, an announcement, a forged GM mail's notice) carry no seat's secret
or reply address, and no seat's mail carries the GM secret."""

from __future__ import annotations

import json
import logging
import re
import tomllib
from email.message import EmailMessage
from importlib.resources import files

import pytest

from pbem.games.kriegspiel.play import opening_text
from pbem.service import games, master, store
from pbem.service.secrets import normalise
from tests.security.dkimkeys import sign
from tests.security.support import new_duel, orders_mail, recipients, reply_to, send
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.chance import chooser
from tests.support.players import parse, player_mail, secret_from_welcome

NORTH, SOUTH = "nora@example.org", "sandro@example.org"
GM = "gm@example.org"
AR = "Authentication-Results: mx.pbem.example; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"


def _forms(secret: str) -> set[str]:
    """A secret as it might be echoed: as issued, upper-cased, without dashes."""
    return {secret, secret.upper(), normalise(secret)}


# ------------------------------------------------------------------------- logs

def test_no_secret_is_ever_logged(secure, dns, keys, caplog: pytest.LogCaptureFixture):  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    ctx = secure(reply_tokens=True, require_dmarc=True, trusted_authserv_id="mx.pbem.example", verify_dkim=True,
                 refusal_interval="0s")
    dns.publish("s1", "example.org", keys["good"])
    game_id, secrets = new_duel(ctx)
    issued = set(secrets.values())

    def mail(sender, seat, secret, lines, **kw):  # type: ignore[no-untyped-def]
        raw = sign(orders_mail(sender, game_id, seat, secret, lines, **kw), keys["good"], "example.org")
        return send(ctx, (AR + "\r\n").encode() + raw)

    red_token = reply_to(outbox(ctx, to=RED, kind="welcome")[0])
    outcomes = [
        mail(RED, "red", secrets["red"], ["PLAY 2"], to=red_token),  # accepted
        mail(RED, "red", secrets["blue"], ["PLAY 2"]),  # another seat's secret
        mail("mallory@evil.example", "red", secrets["red"], ["PLAY 1"]),  # a stolen secret
        mail(BLUE, "blue", secrets["blue"], ["GIOCA 1"], to=red_token),  # another seat's token
        send(ctx, (AR.replace("pass", "fail") + "\r\n").encode()
             + orders_mail(BLUE, game_id, "blue", secrets["blue"], ["GIOCA 1"])),  # no DKIM, DMARC failed
        send(ctx, orders_mail(BLUE, game_id, "blue", secrets["blue"], ["GIOCA 1"])),  # no results at all
    ]
    rotated = mail(RED, "red", secrets["red"], ["SECRET NEW"])
    new = secret_from_welcome(text_of(outbox(ctx, to=RED)[-1]))
    issued.add(new)
    outcomes += [rotated, mail(RED, "red", secrets["red"], ["PLAY 3"]), mail(RED, "red", new, ["PLAY 3"]),
                 mail(BLUE, "blue", secrets["blue"], ["GIOCA 1"])]  # the turn resolves, reports go out
    assert [o.status for o in outcomes] == ["orders", "refused", "refused", "refused", "refused", "refused",
                                            "command", "refused", "orders", "orders"]
    assert any(r.levelno == logging.DEBUG for r in caplog.records)  # DEBUG really was on
    assert any(r.name.startswith("pbem.mail.auth") for r in caplog.records)
    forms = set().union(*(_forms(s) for s in issued))
    for record in caplog.records:
        seen = " ".join([record.getMessage(), str(record.args), record.exc_text or "", str(record.__dict__)])
        leaked = [f for f in forms if f in seen]
        assert not leaked, f"{record.name}: {record.getMessage()[:200]}"
    assert not [f for f in forms if f in caplog.text]


# ------------------------------------------------------------------------- mails

def _decoded(raw: bytes) -> tuple[str, list[dict[str, object]]]:
    """All the text of a mail (headers, every text part) and its JSON attachments, decoded."""
    msg: EmailMessage = parse(raw)
    texts = [f"{k}: {v}" for k, v in msg.items()]
    views: list[dict[str, object]] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        data = part.get_payload(decode=True) or b""
        if ctype == "image/png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
        elif ctype == "application/json":
            view = json.loads(data)
            views.append(view)
            texts.append(json.dumps(view, ensure_ascii=False))
        else:
            texts.append(part.get_content() if ctype.startswith("text/") else data.decode("utf-8", "replace"))
    return "\n".join(texts), views


def _unit_patterns(deployment: str) -> list[re.Pattern[str]]:
    """Each deployed unit, as any text would name it: ``INFANTRY K15``, ``fanteria K15``,
    ``K15 (infantry``, in either language, with any accepted word for the kind."""
    table = tomllib.loads(files("pbem.games.kriegspiel").joinpath("data/units.toml").read_text("utf-8"))
    words: dict[str, list[str]] = {}
    for entry in table.values():
        if isinstance(entry, dict) and "keyword" in entry:
            names = [entry["keyword"], entry.get("keyword_it", ""), *entry.get("aliases", [])]
            words[entry["keyword"]] = sorted({w for n in names if n for w in (n, n.replace("-", " "))}, key=len,
                                             reverse=True)
    patterns = []
    for line in deployment.splitlines():
        kind, square = line.split()
        alt = "|".join(re.escape(w) for w in words[kind])
        patterns.append(re.compile(rf"(?:\b(?:{alt})\s+{square}\b)|(?:\b{square}\W{{0,3}}(?:{alt})\b)", re.IGNORECASE))
    return patterns


def _play(ctx, game_id, secrets):  # type: ignore[no-untyped-def]
    """Deployment with commands and refusals on both sides, then a few move turns."""
    addresses = {"north": NORTH, "south": SOUTH}

    def mail(seat, lines, secret=None, sender=None):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(sender or addresses[seat], game_id, seat, secret or secrets[seat], lines))

    for line in ("STATUS", "MAP", "ORDERS", "HISTORY", "HELP"):
        assert mail("south", [line]).status == "command"
    assert mail("north", opening_text("north").splitlines()).status == "orders"
    for line in ("STATUS", "MAP", "ORDERS", "HISTORY"):  # north's orders are sealed but on file now
        assert mail("south", [line]).status == "command"
        assert mail("north", [line]).status == "command"
    assert mail("north", ["PLAY 1"], secret=secrets["south"]).status == "refused"  # south's secret, north's seat
    assert mail("north", ["STATUS"], sender=SOUTH).status == "refused"
    assert mail("south", ["SECRET NEW"]).status == "command"
    rotated = secret_from_welcome(text_of(outbox(ctx, to=SOUTH)[-1]))
    old_south, secrets["south"] = secrets["south"], rotated
    assert mail("south", ["STATUS"], secret=old_south).status == "refused"
    reveal = max(r.id or 0 for r in outbox(ctx))
    assert mail("south", opening_text("south").splitlines()).status == "orders"
    for _ in range(4):
        with ctx.session() as s:
            game = store.get_game(s, game_id)
            phase = store.rules_of(game).phase(store.state_of(game))
        for seat in phase.awaiting:
            assert mail(seat, ["PASS"]).status == "orders"
    for line in ("STATUS", "HISTORY", "HISTORY 0", "MAP"):
        assert mail("north", [line]).status == "command"
    return reveal, {"north": {secrets["north"]}, "south": {old_south, rotated}}


def test_no_mail_of_a_played_game_shows_another_seats_secret_or_sealed_deployment(secure):  # type: ignore[no-untyped-def]
    ctx = secure(reply_tokens=True)
    game_id = games.create(ctx, "kriegspiel", "Leak walk",
                           [games.SeatSpec("north", NORTH), games.SeatSpec("south", SOUTH, "it")])
    secrets = {seat: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0]))
               for seat, addr in (("north", NORTH), ("south", SOUTH))}
    tokens = {seat: reply_to(outbox(ctx, to=addr, kind="welcome")[0]) for seat, addr in (("north", NORTH), ("south", SOUTH))}
    reveal, issued = _play(ctx, game_id, secrets)
    # the game master by mail: the GM secret, an extension, an announcement, a forged GM mail
    assert GM in master.appoint(ctx, game_id, GM)
    gm_secret = secret_from_welcome(text_of(outbox(ctx, to=GM)[-1]))
    for lines in (["EXTEND 1h"], ["ANNOUNCE", "Tea at five."], ["PAUSE"], ["RESUME"], ["HELP"]):
        block = "\n".join([f"GAME {game_id}", f"GM {gm_secret}", *lines, "END"])
        assert send(ctx, player_mail(GM, block)).status == "command", lines
    forged = "\n".join([f"GAME {game_id}", f"GM {gm_secret}", "END DRAW", "END"])
    assert send(ctx, player_mail(NORTH, forged)).status == "refused"
    rows = outbox(ctx)
    first_report = min(r.id or 0 for r in rows if r.kind == "report")
    assert reveal < first_report
    seat_of = {NORTH: "north", SOUTH: "south"}
    deployment = {side: _unit_patterns(opening_text(side)) for side in ("north", "south")}
    # The rules' help shows a sample deployment (North's usual opening) to everyone: a unit
    # named in a seat's welcome mail, written before anybody deployed, proves nothing.
    for seat, addr in (("north", NORTH), ("south", SOUTH)):
        them = "south" if seat == "north" else "north"
        welcome = _decoded(outbox(ctx, to=addr, kind="welcome")[0].raw)[0]
        deployment[them] = [p for p in deployment[them] if not p.search(welcome)]
        assert len(deployment[them]) >= 10
    checked = {"pre-reveal": 0, "json": 0, "own-secret": 0, "own-units": 0, "revealed": 0, "gm": 0, "announced": 0}
    for row in rows:
        (address,) = recipients(row)
        text, views = _decoded(row.raw)
        if address == GM:  # the game master's mail: no seat's secret or reply address
            for secret in issued["north"] | issued["south"]:
                assert not _forms(secret) & set(re.findall(r"[0-9a-zA-Z-]+", text)), f"a seat's secret to the GM: {row.subject}"
            assert not {tokens["north"], tokens["south"]} & set(re.findall(r"[^\s<>\"]+@[^\s<>\"]+", text))
            checked["gm"] += 1
            continue
        assert not _forms(gm_secret) & set(re.findall(r"[0-9a-zA-Z-]+", text)), "the GM secret in a mail to a seat"
        checked["announced"] += "Tea at five." in text
        me = seat_of[address]
        them = "south" if me == "north" else "north"
        checked["json"] += len(views)
        for secret in issued[them]:
            assert not _forms(secret) & set(re.findall(r"[0-9a-zA-Z-]+", text)) and secret not in text, \
                f"{them}'s secret in a {row.kind} mail to {me}: {row.subject}"
        assert tokens[them] not in text, f"{them}'s reply address in a mail to {me}"
        # The detectors are live: they find what a seat may see.
        checked["own-secret"] += any(secret in text for secret in issued[me])
        checked["own-units"] += any(p.search(text) for p in _unit_patterns(opening_text(me)))
        checked["revealed"] += any(u.get("side") == them for v in views for u in v.get("units", []))  # type: ignore[union-attr]
        if (row.id or 0) < first_report:  # before the deployment is revealed
            checked["pre-reveal"] += 1
            for view in views:
                assert not [u for u in view.get("units", []) if u.get("side") == them]  # type: ignore[union-attr]
            for pattern in deployment[them]:
                assert not pattern.search(text), f"{them}'s {pattern.pattern[:40]}… in a {row.kind} mail to {me}"
    assert checked["pre-reveal"] >= 20 and checked["json"] >= 6, checked
    assert checked["own-secret"] >= 3 and checked["own-units"] >= 2 and checked["revealed"] >= 4, checked
    assert checked["gm"] >= 6 and checked["announced"] == 2, checked  # the GM's mails and the announcement walked
    assert {r.kind for r in rows} >= {"welcome", "reply", "refusal", "report"} and len(rows) > 30


# ------------------------------------------------------------------------- Block Mania: hands and piles

MANIA = {"red": "rita@example.org", "blue": "bruno@example.org", "green": "gina@example.org"}


def _mania_secrets(state, seen: dict[str, set[str]]) -> None:  # type: ignore[no-untyped-def]
    """The texts only one seat may read, in both languages: its hand dealt, the cards it drew or
    discarded, its first Blockers, the counters its Blockers drew (Block Mania 3, 10.ii, 11.i)."""
    from pbem.core.i18n import msg
    from pbem.games.blockmania import RULES

    for log in state.log:
        for note in log.notes:
            if note.to is not None:
                for seat in note.to:
                    for lang in ("en", "it"):
                        seen.setdefault(seat, set()).add(RULES.catalog.text(msg(note.key, **dict(note.args)), lang))


def test_no_block_mania_mail_shows_another_players_hand_pile_or_shuffle(secure):  # type: ignore[no-untyped-def]
    """11.i: each player's hand, pile order and draws are his; the counts are public. Three players,
    commands and a dozen phases of random legal orders; every mail decoded whole: no other seat's secret
    or reply address, no text addressed to another seat (a hand, a card drawn, the first Blockers), no
    other seat's hand in a JSON view, and no shuffle's dice before the seed is revealed."""
    from pbem.games.blockmania import RULES

    ctx = secure(reply_tokens=True)
    game_id = games.create(ctx, "blockmania", "Leak walk, Mega-City One",
                           [games.SeatSpec(s, a, "it" if s == "green" else "en") for s, a in MANIA.items()])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in MANIA.items()}
    tokens = {s: reply_to(outbox(ctx, to=a, kind="welcome")[0]) for s, a in MANIA.items()}
    pick = chooser("leak")
    def mail(seat: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(MANIA[seat], game_id, seat, secrets[seat], lines))

    private: dict[str, set[str]] = {}
    for seat in MANIA:
        for line in ("STATUS", "MAP", "ORDERS", "HISTORY", "HISTORY 0", "HELP"):
            assert mail(seat, [line]).status == "command"
    for _ in range(14):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, game_id))
        _mania_secrets(state, private)
        for seat in RULES.phase(state).awaiting:
            assert mail(seat, RULES.random_orders(state, seat, pick).splitlines()).status == "orders"
        for seat in MANIA:
            assert mail(seat, ["STATUS"]).status == "command"
    with ctx.session() as s:
        state = store.state_of(store.get_game(s, game_id))
        assert not store.get_game(s, game_id).seed_revealed
    _mania_secrets(state, private)
    seat_of = {a: s for s, a in MANIA.items()}
    checked = {"own-private": 0, "json": 0, "sealed": 0}
    for row in outbox(ctx):
        (address,) = recipients(row)
        me = seat_of[address]
        text, views = _decoded(row.raw)
        for them in MANIA:
            if them == me:
                continue
            assert not _forms(secrets[them]) & set(re.findall(r"[0-9a-zA-Z-]+", text)), f"{them}'s secret to {me}"
            assert tokens[them] not in text, f"{them}'s reply address in a mail to {me}"
            for line in private.get(them, set()) - private.get(me, set()):
                assert line not in text, f"{them}'s {line!r} in a {row.kind} mail to {me}: {row.subject}"
        for view in views:
            checked["json"] += 1
            for entry in view.get("seats", []):  # type: ignore[union-attr]
                if entry["name"] != me:
                    assert not {"hand", "ready", "standing"} & set(entry), (me, entry["name"])
        assert not re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \d", text), f"a shuffle's dice in a mail to {me}"
        checked["sealed"] += bool(re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \((sealed|sigillato)", text))
        checked["own-private"] += any(line in text for line in private.get(me, set()))  # the detector is live
    assert checked["own-private"] >= 6 and checked["json"] >= 20 and checked["sealed"] >= 3, checked


# ------------------------------------------------------------------------- Corteo: a scenario's sealed set-up

CORTEO_SEATS = {"anna@example.org": "corteo", "beppe@example.org": "corteo", "pietro@example.org": "potere"}


def test_no_corteo_scenario_mail_shows_the_other_sides_sealed_set_up_or_a_secret(secure):  # type: ignore[no-untyped-def]
    """Corteo's Scenario Antifascista (rulebook D): the set-up is sealed (C 3a), and a scenario adds to
    it the corteo's POC dissidents placed in the case popolari and the power's rally pieces placed
    on their square. Until both sides have filed, no mail to one side names the other's placements;
    no mail to any player (the corteo is a team) carries another player's secret or reply address."""
    from pbem.games.corteo import RULES

    ctx = secure(reply_tokens=True)
    team = games.SeatSpec.parse("corteo=anna@example.org:it,beppe@example.org:en")
    game_id = games.create(ctx, "corteo", "Leak walk, antifascista",
                           [team, games.SeatSpec("potere", "pietro@example.org", "it")],
                           options={"scenario": "antifascista"})
    welcome = {a: outbox(ctx, to=a, kind="welcome")[0] for a in CORTEO_SEATS}
    secrets = {a: secret_from_welcome(text_of(w)) for a, w in welcome.items()}
    tokens = {a: reply_to(w) for a, w in welcome.items()}

    def mail(address: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(address, game_id, CORTEO_SEATS[address], secrets[address], lines))

    sealed = {"corteo": [re.compile(r"POC1\W{1,4}(?:\w+\W{1,4})?Q3\b"), re.compile(r"POC2\W{1,4}(?:\w+\W{1,4})?Z34\b")],
              "potere": [re.compile(r"COM7\W{1,4}(?:\w+\W{1,4})?I24\b"), re.compile(r"CE1\W{1,4}(?:\w+\W{1,4})?G20\b")]}
    assert mail("anna@example.org", ["ORDINI"]).status == "command"
    assert mail("anna@example.org", ["TESTA LC", "PIAZZA POC1 Q3"]).status == "orders"
    assert mail("beppe@example.org", ["HEAD MOV", "PLACE POC1 Q3", "PLACE POC2 Z34"]).status == "orders"
    assert mail("pietro@example.org", ["ORDINI"]).status == "command"
    assert mail("pietro@example.org", ["STATUS"]).status == "command"
    before = max(r.id or 0 for r in outbox(ctx))
    assert mail("pietro@example.org", ["PIAZZA COM7 I24", "PIAZZA CE1 G20"]).status == "orders"
    pick = chooser("corteo-leak")
    for _ in range(6):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, game_id))
        for seat in RULES.phase(state).awaiting:
            sender = "pietro@example.org" if seat == "potere" else "beppe@example.org"
            assert mail(sender, RULES.random_orders(state, seat, pick).splitlines()).status == "orders"
    checked = {"sealed-before": 0, "own-sealed": 0, "revealed": 0, "own-secret": 0}
    for row in outbox(ctx):
        (address,) = recipients(row)
        text, _views = _decoded(row.raw)
        me = CORTEO_SEATS[address]
        them = "potere" if me == "corteo" else "corteo"
        for other, secret in secrets.items():
            if other != address:
                assert not _forms(secret) & set(re.findall(r"[0-9a-zA-Z-]+", text)), f"{other}'s secret to {address}"
                assert tokens[other] not in text, f"{other}'s reply address in a mail to {address}"
        checked["own-secret"] += secrets[address] in text
        if (row.id or 0) <= before:
            checked["sealed-before"] += 1
            for pattern in sealed[them]:
                assert not pattern.search(text), f"{them}'s {pattern.pattern} in a {row.kind} mail to {address}"
            checked["own-sealed"] += any(p.search(text) for p in sealed[me])  # the detector is live
        else:
            checked["revealed"] += any(p.search(text) for p in sealed[them])  # after the set-up: public
    assert checked["sealed-before"] >= 8 and checked["own-sealed"] >= 2, checked
    assert checked["revealed"] >= 2 and checked["own-secret"] >= 3, checked


def test_no_corteo_sociale_mail_shows_the_secret_place_to_the_power(secure):  # type: ignore[no-untyped-def]
    """Corteo's Scenario Sociale (rulebook D): "Il foglio non si scopre e rimane segreto per tutto il gioco
    se il giocatore-corteo non è riuscito a raggiungere il luogo prescelto". The corteo's team writes its
    secret place at the set-up; no mail to the power (replies, reports, maps' views, ORDINI) ever names
    it, while the corteo's own mails do (the detector is live)."""
    from pbem.games.corteo import RULES

    ctx = secure(reply_tokens=True)
    team = games.SeatSpec.parse("corteo=anna@example.org:it,beppe@example.org:en")
    game_id = games.create(ctx, "corteo", "Leak walk, sociale",
                           [team, games.SeatSpec("potere", "pietro@example.org", "it")],
                           options={"scenario": "sociale"})
    welcome = {a: outbox(ctx, to=a, kind="welcome")[0] for a in CORTEO_SEATS}
    secrets = {a: secret_from_welcome(text_of(w)) for a, w in welcome.items()}

    def mail(address: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(address, game_id, CORTEO_SEATS[address], secrets[address], lines))

    place = re.compile(r"D4\W{1,3}D5\W{1,3}D6\W{1,3}D7")
    assert mail("anna@example.org", ["FORMAZIONE C2 C3 D2 D3 D4 D5 D6 D7 D8 D9 D10 D11", "TESTA AUTOP"]).status == "orders"
    assert mail("pietro@example.org", ["ORDINI"]).status == "command"
    assert mail("pietro@example.org", ["PASS"]).status == "orders"
    pick = chooser("corteo-sociale-leak")
    for _ in range(8):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, game_id))
        assert state.secret and not state.knows("secret-revealed")
        for seat in RULES.phase(state).awaiting:
            sender = "pietro@example.org" if seat == "potere" else "beppe@example.org"
            assert mail(sender, RULES.random_orders(state, seat, pick).splitlines()).status == "orders"
    assert mail("pietro@example.org", ["STATUS"]).status == "command"
    checked = {"power": 0, "own": 0}
    for row in outbox(ctx):
        (address,) = recipients(row)
        text, _views = _decoded(row.raw)
        if CORTEO_SEATS[address] == "potere":
            checked["power"] += 1
            assert not place.search(text), f"the secret place in a {row.kind} mail to the power"
        else:
            checked["own"] += bool(place.search(text))
    assert checked["power"] >= 6 and checked["own"] >= 2, checked


# ------------------------------------------------------------------------- observers and press

def test_no_observer_or_press_mail_leaks_a_hand_a_deployment_a_grey_sender_or_a_secret(secure):  # type: ignore[no-untyped-def]
    """Observers and press (issue "Observers and press"): a Block Mania game of three with an observer
    (one turn late) and white press, and a Kriegspiel game with an observer and grey press; every mail of
    both games decoded whole, the observers' included: an observer reads no hand or text addressed to a
    seat, no shuffle's dice, no sealed deployment before its reveal, no press, no secret or reply address;
    the addressee of grey press never reads its sender; no seat reads another's secret or reply address."""
    from pbem.db.models import PressRow
    from pbem.games.blockmania import RULES
    from pbem.service import observers
    from sqlmodel import select

    ctx = secure(reply_tokens=True)
    olga, otto = "olga@example.org", "otto@example.org"
    # Block Mania: an observer, white press
    mania = games.create(ctx, "blockmania", "Leak walk, watched",
                         [games.SeatSpec(s, a, "it" if s == "green" else "en") for s, a in MANIA.items()])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in MANIA.items()}
    tokens = {s: reply_to(outbox(ctx, to=a, kind="welcome")[0]) for s, a in MANIA.items()}
    assert "now watches" in observers.add(ctx, mania, olga)

    def mail(game_id: str, seat: str, address: str, secret: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return send(ctx, orders_mail(address, game_id, seat, secret, lines))

    words = "Let us share the ring, red."
    assert mail(mania, "red", MANIA["red"], secrets["red"], ["PRESS blue,green", words]).status == "command"
    pick = chooser("leak-observer")
    private: dict[str, set[str]] = {}
    for _ in range(12):
        with ctx.session() as s:
            state = store.state_of(store.get_game(s, mania))
        _mania_secrets(state, private)
        for seat in RULES.phase(state).awaiting:
            lines = RULES.random_orders(state, seat, pick).splitlines()
            assert mail(mania, seat, MANIA[seat], secrets[seat], lines).status == "orders"
    with ctx.session() as s:
        _mania_secrets(store.state_of(store.get_game(s, mania)), private)
    every_private = set().union(*private.values())
    # Kriegspiel: an observer, grey press after the deployment
    war = games.create(ctx, "kriegspiel", "Leak walk, grey", [games.SeatSpec("north", NORTH), games.SeatSpec("south", SOUTH, "it")],
                       policies={"press": "grey", "press_in": "orders"})
    ks = {seat: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0])) for seat, addr in
          (("north", NORTH), ("south", SOUTH))}
    ks_tokens = {seat: reply_to(outbox(ctx, to=addr, kind="welcome")[0]) for seat, addr in (("north", NORTH), ("south", SOUTH))}
    assert "now watches" in observers.add(ctx, war, otto)
    grey = "Nobody knows who writes this."
    assert mail(war, "north", NORTH, ks["north"], ["PRESS south", grey]).status == "refused"  # sealed deployment
    assert mail(war, "north", NORTH, ks["north"], opening_text("north").splitlines()).status == "orders"
    reveal = max(r.id or 0 for r in outbox(ctx))
    assert mail(war, "south", SOUTH, ks["south"], opening_text("south").splitlines()).status == "orders"
    assert mail(war, "north", NORTH, ks["north"], ["PRESS south", grey]).status == "command"
    for _ in range(3):
        with ctx.session() as s:
            game = store.get_game(s, war)
            phase = store.rules_of(game).phase(store.state_of(game))
        for seat in phase.awaiting:
            assert mail(war, seat, NORTH if seat == "north" else SOUTH, ks[seat], ["PASS"]).status == "orders"
    with ctx.session() as s:
        (row,) = s.exec(select(PressRow).where(PressRow.game_id == war))
        assert (row.sender_seat, row.mode) == ("north", "grey")  # recorded, never told
    deployments = [p for side in ("north", "south") for p in _unit_patterns(opening_text(side))]
    every_secret = set().union(*(_forms(x) for x in [*secrets.values(), *ks.values()]))
    every_token = {*tokens.values(), *ks_tokens.values()}
    seat_of = {**{a: ("mania", s) for s, a in MANIA.items()}, NORTH: ("war", "north"), SOUTH: ("war", "south")}
    checked = {"observer": 0, "observer-json": 0, "grey": 0, "white": 0, "seat": 0}
    for row in outbox(ctx):
        (address,) = recipients(row)
        text, views = _decoded(row.raw)
        found = set(re.findall(r"[0-9a-zA-Z-]+", text))
        if address in (olga, otto):  # an observer: the public position only
            checked["observer"] += 1
            assert not every_secret & found and not [x for x in every_token if x in text], row.subject
            assert words not in text and grey not in text, f"press in an observer's mail: {row.subject}"
            assert not [line for line in every_private if line in text], row.subject
            assert not re.search(r"shuffle [^\n]*: d\d+ = \d", text)
            for view in views:
                checked["observer-json"] += 1
                assert view.get("viewer") is None
                for entry in view.get("seats", []):  # type: ignore[union-attr]
                    assert not {"hand", "ready", "standing"} & set(entry)
            if (row.id or 0) <= reveal:
                assert not [p for p in deployments if p.search(text)], row.subject
            continue
        game, me = seat_of[address]
        checked["seat"] += 1
        if game == "mania":
            for them in MANIA:
                if them != me:
                    assert not _forms(secrets[them]) & found and tokens[them] not in text, (me, them, row.subject)
            checked["white"] += row.kind == "press" and ("from Red" in text or "da Rosso" in text)
        else:
            them = "south" if me == "north" else "north"
            assert not _forms(ks[them]) & found and ks_tokens[them] not in text, (me, them, row.subject)
            if row.kind == "press":
                checked["grey"] += 1
                head = text.split("Nobody knows", 1)[0]
                assert "anonimo" in head and "north" not in head.lower() and "nord" not in head.lower()
                assert NORTH not in text and ks_tokens["north"] not in text
    assert checked["observer"] >= 4 and checked["observer-json"] >= 2, checked
    assert checked["grey"] == 1 and checked["white"] >= 2 and checked["seat"] > 40, checked
