"""The Mania / Justice deck in play (rulebook 3, 10.ii, 11, 12) over a `Board`.

Pure rules: no I/O, no clock; chance only through a `Dice`.  A shuffle is dice too: each position of
the new order, from the top, is a roll over the cards left (``dice.roll(len(left))``, the cards left
counted in number order, as arditi draws from its bag; the last card is taken without a roll).  Every
``check_*`` returns a `Message` saying why not, or None; the matching do-function applies the card and
records notes.  The do-functions assume their check passed.  The card cut of the Board: ``deck`` and
``set_aside`` (top first, secret), ``hands`` by seat (secret), ``discards`` (oldest first), ``final``
(the Judges are here); ``card_effects`` holds Attack cards waiting for their roll.  The phase is
``State.stage``, named as ``cards.PHASES`` ("command", "defensive-fire", "combat").

Readings of the rulebook, decided here (to be copied to docs/games/blockmania.md, "The deck in play"):

- 3: one shuffle of the 55 cards; the first 16 / 12 / 6 (2 / 3 / 4 players; beyond four the four-player
  number, `cards.Deck.set_aside`) are set aside, then each seat in seat order takes the next 3.  The
  rulebook's second shuffle of what is left changes nothing to a fair shuffle and is not rolled.
- 10.ii, 11.i: the draw is the top card; its name is told to the drawer only.  A fourth card in hand is
  discarded at once: the card the player named in his orders (``discard``, "if I draw a fourth card,
  discard card N": over email the draw happens after his orders), else the card just drawn.  A card
  discarded for the hand limit goes to the discards face down: its name too is told to its player only.
  A card played is shown to everyone.
- 10.ii, 12.i: drawing the last Mania card brings the Judges: the discards and the set-aside cards are
  shuffled into the Justice deck; the hands stay and are used by their Justice side from then on.
  Mega Mega-Mania (more than 4 players): the first time, the discards are shuffled into a second Mania
  deck of 12 cards a player beyond the fourth, the rest set aside; the Judges come at its last card.
  (That it happened is read from the notes, ``note-card-extra-deck``: State has no flag for it.)
- 11.ii Command cards: the active player, in the Command Phase, on his own pieces.  A re-roll replaces
  the Command Points left; the Blocker moving keeps its move and nobody is activated twice
  (``Blocker.activated``).  A free or hired Blocker is placed by 5.ii's rules (movement.new_blocker);
  hired Kleggs come from their pool (roster), ids ``<seat>-klegg-<n>``.
- 11.iii Hazard cards: against any Blocker in a square of the card's kind; in the Command Phase also
  against the last Blocker moved (the one moving, or the last activated), at a square of that kind it
  passed in its move (the squares its steps started and ended in, and a lift's shaft), until another
  Blocker is activated.  A Blocker struck where it passed is put back there.  An attack is a shot
  (damage.roll_kill) with the card's bonus as the weapon's damage, +1 in Open Air or Civic; a survivor
  moves on with the MP it has left.  A stop ends the Blocker's move (its spent Command Points are
  lost); in the Defensive Fire or Combat Phase it turns the Blocker face down (ours: it does nothing
  this phase).
- 11.iv Attack cards: a card changing dice is kept on the board (``card_effects``) until the roll it
  changes: the engine passes ``card_bonus`` into combat's ``bonus`` arguments; a card not used by the
  end of the phase is lost.  "Shooting" cards change defensive fire too (7 is shooting).  A cancelled
  shot turns the shooter face down.  An extra attack turns face up a Blocker that attacked this phase.
- 12.ii Justice: the active player plays exactly one, from his hand, before his Command Points are
  rolled; removed Blockers go to ``JUSTICE`` (not losses, 12.iii), their counters to the pools.  A card
  that would remove nobody removes ``justice_fallback`` Blocker(s) named by the player (default: the
  first by id of the other players' Blockers on the map, else his own).  Where the owners choose
  ("each-player"), a seat that gave no choice loses its cheapest Blocker (lowest cost, then id).
- 12.i, 12.iii: the game ends when every block has fallen, or when no Blocker is on the map and none
  can come (the Final Phase, or every pile empty).

Not yet (they need an engine decision or a State field): Ambush (``defensive-fire-range``: combat's
defensive fire is adjacent only) is refused with ``err-card-not-yet``; the Judges marker of
"Judges' Patrol" (no Blocker may enter its square) is not kept, only its arrests are made.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from pbem.core.dice import Dice
from pbem.core.i18n import Message, msg
from pbem.games.blockmania.blocks import KIND_KEYS, Loc
from pbem.games.blockmania.board import Board, CardEffect
from pbem.games.blockmania.cards import ATTACK_PHASES, DECK, Face
from pbem.games.blockmania.damage import occupants, roll_kill, where
from pbem.games.blockmania.movement import (
    activate, check_activate, check_new_blocker, draw_counter, end_move, has_train, new_blocker, place_train,
    roll_command_points,
)
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import JUSTICE, PILE, Blocker, Note, State

MOVE_NOTES = ("note-walk", "note-lift", "note-chute", "note-skyrail", "note-pedway", "note-megaway", "note-fly")
COMBAT_NOTES = ("note-combat-shoots", "note-combat-close", "note-combat-loot", "note-combat-scrawl",
                "note-combat-arson", "note-combat-firefight", "note-defensive-fire")
#: Notes that end the start of the Command Phase: the Justice card comes before them (12.ii).
COMMAND_STARTED = ("note-command-points", "note-activated", "note-new-blocker", *MOVE_NOTES)


# -- the cards -----------------------------------------------------------------------------------------


def face(board: Board, card: int) -> Face:
    """The side of ``card`` in use: Mania, or Justice once the Judges are here (11.i, 12.ii)."""
    c = DECK.card(card)
    return c.justice if board.final else c.mania


def shuffle(cards: Iterable[int], dice: Dice, purpose: str) -> list[int]:
    """The cards in a new order, top first: each position a roll over the cards left, counted in number
    order (the last one without a roll)."""
    left = sorted(cards)
    out: list[int] = []
    while left:
        i = 0 if len(left) == 1 else dice.roll(len(left), f"shuffle {purpose} (rank among the cards left)") - 1
        out.append(left.pop(i))
    return out


def _names(cards: Iterable[int], board: Board) -> str:
    return ", ".join(face(board, c).name for c in cards)


# -- 3. Set-up -----------------------------------------------------------------------------------------


def deal(board: Board, dice: Dice) -> None:
    """3: shuffle the 55 cards, set aside 16 / 12 / 6 of them (2 / 3 / 4 players) for the Final Phase,
    then each player takes 3 cards; each hand is told to its player only."""
    seats = [s.name for s in board.state.seats]
    order = shuffle((c.number for c in DECK.cards), dice, "the deck")
    aside = DECK.set_aside(len(seats))
    board.set_aside, order = order[:aside], order[aside:]
    board.final = False
    board.discards = []
    for seat in seats:
        board.hands[seat], order = order[:DECK.rules.hand], order[DECK.rules.hand:]
        board.note("note-card-hand", to=(seat,), seat=seat, cards=_names(board.hands[seat], board))
    board.deck = order
    board.note("note-card-dealt", set_aside=aside, hand=DECK.rules.hand, deck=len(board.deck))


# -- 10.ii The draw, the hand limit, and the Judges (12.i) ---------------------------------------------


def draw(board: Board, seat: str, dice: Dice, discard: int | None = None) -> int | None:
    """10.ii: the player takes the top card (its name to him only); with a fourth card in hand he
    discards at once ``discard`` if he holds it, else the card just drawn.  The last Mania card brings
    the Judges (12.i; Mega Mega-Mania: first a second Mania deck).  In the Final Phase an empty Justice
    deck is made again from the discards (ours).  Returns the card drawn, None if there was none."""
    if not board.deck and board.final and DECK.rules.justice_reshuffle and board.discards:
        board.deck, board.discards = shuffle(board.discards, dice, "the Justice discards"), []
        board.note("note-card-reshuffle", deck=len(board.deck))
    if not board.deck:
        board.note("note-card-none", seat=seat)
        return None
    card = board.deck.pop(0)
    hand = board.hands.setdefault(seat, [])
    hand.append(card)
    board.note("note-card-drawn", seat=seat, hand=len(hand), deck=len(board.deck))
    board.note("note-card-drawn-name", to=(seat,), seat=seat, card=face(board, card).name)
    if len(hand) > DECK.rules.hand_limit:
        out = discard if discard is not None and discard in hand else card
        hand.remove(out)
        board.discards.append(out)
        board.note("note-card-limit", seat=seat, limit=DECK.rules.hand_limit)
        board.note("note-card-limit-name", to=(seat,), seat=seat, card=face(board, out).name)
    if not board.deck and not board.final:
        if extra_deck_due(board):
            extra_deck(board, dice)
        else:
            judges_arrive(board, dice)
    return card


def _all_notes(board: Board) -> Iterable[Note]:
    for log in board.state.log:
        yield from log.notes
    yield from board.notes


def extra_deck_due(board: Board) -> bool:
    """Mega Mega-Mania: more than four players and no second Mania deck yet."""
    players = len(board.state.seats)
    return DECK.extra_deck(players) > 0 and not any(n.key == "note-card-extra-deck" for n in _all_notes(board))


def extra_deck(board: Board, dice: Dice) -> None:
    """Mega Mega-Mania: the discards shuffled; 12 cards a player beyond the fourth are the new Mania
    deck, the rest are set aside for the Final Phase."""
    size = DECK.extra_deck(len(board.state.seats))
    order = shuffle(board.discards, dice, "the second Mania deck")
    board.deck, board.discards = order[:size], []
    board.set_aside += order[size:]
    board.note("note-card-extra-deck", deck=len(board.deck), set_aside=len(board.set_aside))
    if not board.deck:
        judges_arrive(board, dice)


def judges_arrive(board: Board, dice: Dice) -> None:
    """12.i: the discards and the set-aside cards are shuffled into a new deck used by its Justice side;
    the hands are used by their Justice side too."""
    board.deck = shuffle(board.discards + board.set_aside, dice, "the Justice deck")
    board.discards, board.set_aside = [], []
    board.final = True
    board.note("note-judges-arrive", deck=len(board.deck))
    for seat, hand in board.hands.items():
        if hand:
            board.note("note-card-hand", to=(seat,), seat=seat, cards=_names(hand, board))


# -- 11. Playing a Mania card --------------------------------------------------------------------------


def phase(board: Board) -> str:
    return board.state.stage


def _active(board: Board) -> str:
    return board.state.active_seat.name


def _card_error(board: Board, seat: str, card: int, kind: str) -> Message | None:
    """11.i: a card of the seat's hand, of the right kind, Mania side before the Judges, in its phase and
    by whom it may be played."""
    if seat not in board.hands or card not in board.hands[seat]:
        return msg("err-card-not-in-hand", card=card)
    f = face(board, card)
    if board.final and kind != "justice":
        return msg("err-card-final", card=f.name)
    if f.kind.key != kind:
        return msg("err-card-kind", card=f.name, kind=kind)
    if not f.playable(phase(board), seat == _active(board)):
        return msg("err-card-when", card=f.name, phase=phase(board))
    return None


def _played(board: Board, seat: str, card: int) -> Face:
    f = face(board, card)
    board.hands[seat].remove(card)
    board.discards.append(card)
    board.note("note-card-played", seat=seat, card=f.name, kind=f.kind.key)
    return f


def _own_on_map(board: Board, seat: str, bid: str | None) -> Message | None:
    if bid is None or bid not in board.blockers:
        return msg("err-card-blocker", blocker=bid or "-")
    if board.owner(bid) != seat:
        return msg("err-card-not-yours", blocker=bid)
    if where(board, bid) is None:
        return msg("err-card-off-map", blocker=bid)
    return None


# -- 11.ii Command cards -------------------------------------------------------------------------------


def _klegg_type() -> str:
    return ROSTER.card_blockers()[0].key


def _hired(board: Board, btype: str) -> int:
    return sum(1 for b in board.blockers.values() if b.type == btype)


def _with_free_blocker(board: Board, seat: str, extra: str | None) -> Message | None:
    """check_new_blocker as if the 4 CP were paid by the card (and ``extra`` on top of the pile)."""
    cost = ROSTER.rules.new_blocker_cost
    pile = board.piles.get(seat, ())
    board.command_points += cost
    if extra is not None:
        board.piles[seat] = (extra,) + pile
    try:
        return check_new_blocker(board, seat)
    finally:
        board.command_points -= cost
        board.piles[seat] = pile


def check_command(board: Board, seat: str, card: int, blocker: str | None = None,
                  stations: Sequence[Loc] = ()) -> Message | None:
    """11.ii: the active player, at any moment of his Command Phase, on his own pieces.  ``blocker``:
    the Blocker a free activation, extra movement (default: the one moving) or draw is for;
    ``stations``: where Sky Rail trains go."""
    err = _card_error(board, seat, card, "command")
    if err is not None:
        return err
    e = face(board, card).effect
    if e.type == "sky-rail-train":
        if len(stations) != e["count"] or len(set(stations)) != len(stations):
            return msg("err-card-stations", count=e["count"])
        for loc in stations:
            if loc not in board.ring.stations() or board.collapsed(loc) or has_train(board, loc):
                return msg("err-card-station", square=loc)
    elif e.type == "hire-blocker":
        if _hired(board, e["blocker"]) >= ROSTER.blocker(e["blocker"]).pool:
            return msg("err-card-none-left", blocker=ROSTER.blocker(e["blocker"]).name)
        return _with_free_blocker(board, seat, f"{seat}-{e['blocker']}-new")
    elif e.type == "free-blocker":
        return _with_free_blocker(board, seat, None)
    elif e.type == "free-activation":
        if blocker is None or blocker not in board.blockers:
            return msg("err-card-blocker", blocker=blocker or "-")
        cost = board.type(blocker).cost
        board.command_points += cost
        try:
            return check_activate(board, blocker)
        finally:
            board.command_points -= cost
    elif e.type == "extra-movement":
        bid = blocker or board.moving.blocker
        if bid is None or bid != board.moving.blocker:
            return msg("err-card-not-moving", blocker=bid or "-")
        return _own_on_map(board, seat, bid)
    elif e.type == "draw-counter":
        err = _own_on_map(board, seat, blocker)
        if err is not None:
            return err
        assert blocker is not None
        if len(board.blockers[blocker].carried) + e["count"] > board.type(blocker).carries:
            return msg("err-card-carries", blocker=blocker)
    return None


def play_command(board: Board, seat: str, card: int, dice: Dice, blocker: str | None = None,
                 stations: Sequence[Loc] = ()) -> list[str]:
    """11.ii: the card's effect at once, through the Command Phase's rules (movement.py).  Returns the
    Blockers it brought into play."""
    f = _played(board, seat, card)
    e = f.effect
    placed: list[str] = []
    if e.type == "command-points":
        board.command_points += e["amount"]
        board.note("note-card-points", seat=seat, amount=e["amount"], points=board.command_points)
    elif e.type == "command-reroll":
        moving, mp = board.moving.blocker, board.moving.mp
        roll_command_points(board, dice)
        board.moving.blocker, board.moving.mp = moving, mp
    elif e.type == "sky-rail-train":
        for loc in stations:
            place_train(board, loc)
    elif e.type in ("hire-blocker", "free-blocker"):
        for _ in range(e["count"]):
            extra = None
            if e.type == "hire-blocker":
                btype = e["blocker"]
                if _hired(board, btype) >= ROSTER.blocker(btype).pool:
                    break
                extra = f"{seat}-{btype}-{_hired(board, btype) + 1}"
                board.blockers[extra] = Blocker(extra, btype, seat, PILE)
                board.piles[seat] = (extra,) + board.piles.get(seat, ())
            elif _with_free_blocker(board, seat, None) is not None:
                break
            board.command_points += ROSTER.rules.new_blocker_cost
            placed.append(new_blocker(board, seat, dice))
    elif e.type == "free-activation":
        assert blocker is not None
        board.command_points += board.type(blocker).cost
        activate(board, blocker)
    elif e.type == "extra-movement":
        board.moving.mp += e["mp"]
        board.note("note-card-mp", blocker=board.moving.blocker or "", mp=e["mp"], left=board.moving.mp)
    elif e.type == "draw-counter":
        assert blocker is not None
        for _ in range(e["count"]):
            draw_counter(board, blocker, e["pool"])
    return placed


# -- 11.iii Hazard cards -------------------------------------------------------------------------------


def square_is(board: Board, loc: Loc, kind: str) -> bool:
    """Whether ``loc`` is a square of ``kind`` (cards.SQUARE_KINDS): a square type, a kind, a feature."""
    s = board.square(loc)
    checks = {"open-air": s.is_open, "window": s.is_window, "interior": s.is_interior, "civic": s.is_civic,
              "lift": board.ring.lift(loc) is not None, "grav-chute": s.chute, "fire-control": s.fire_control}
    if kind in checks:
        return checks[kind]
    return KIND_KEYS.get(s.kind.code) == kind


def last_mover(board: Board) -> str | None:
    """11.iii: the Blocker moving, or the last activated this phase (until another is activated)."""
    if board.moving.blocker is not None:
        return board.moving.blocker
    for n in reversed(board.notes):
        if n.key == "note-activated":
            return dict(n.args)["blocker"]
    return board.state.mover or None  # a Command Phase paused for the hazard decisions


def passed(board: Board, bid: str) -> list[Loc]:
    """The squares ``bid`` was in during its move this phase, latest first (steps' starts and ends, and a
    lift's shaft)."""
    out: list[Loc] = list(reversed(board.passed_before.get(bid, [])))
    for n in board.notes:
        args = dict(n.args)
        if n.key == "note-activated" and args.get("blocker") == bid:
            out = []
        if n.key not in MOVE_NOTES or args.get("blocker") != bid:
            continue
        start, end = board.ring.loc(args["start"]), board.ring.loc(args["square"])
        route = [start]
        if n.key == "note-lift":
            try:
                route += list(board.ring.lift_route(start, end))
            except ValueError:
                route.append(end)
        else:
            route.append(end)
        out += [loc for loc in route if loc not in out]
    return list(reversed(out))


def hazard_squares(board: Board, card: int, target: str) -> list[Loc]:
    """11.iii: where the card may strike ``target``: its square, if of the card's kind; in the Command
    Phase also the squares of that kind the last Blocker moved passed (latest first)."""
    f = face(board, card)
    assert f.square is not None
    here = where(board, target)
    if here is None:
        return []
    out = [here] if square_is(board, here, f.square) else []
    if phase(board) == "command" and target == last_mover(board):
        # 6.ii "Un Blocker non può mai entrare nello Square occupato da un altro Blocker": sent back, it
        # goes only to a square it passed that nobody else holds (a lift's shaft passes occupied squares)
        out += [loc for loc in passed(board, target) if loc not in out and square_is(board, loc, f.square)
                and not [b for b in occupants(board, loc) if b != target]]
    return out


def check_hazard(board: Board, seat: str, card: int, target: str, square: Loc | None = None) -> Message | None:
    """11.iii: any player, in the Command, Defensive Fire or Combat Phase, against a Blocker in, or passing
    through, a square of the kind in bold on the card (``square``: which one; default the latest)."""
    err = _card_error(board, seat, card, "hazard")
    if err is not None:
        return err
    if target not in board.blockers or where(board, target) is None:
        return msg("err-card-off-map", blocker=target)
    places = hazard_squares(board, card, target)
    f = face(board, card)
    if not places or (square is not None and board.ring.loc(square.block, square.label) not in places):
        return msg("err-hazard-square", blocker=target, kind=f.square or "")
    return None


def play_hazard(board: Board, seat: str, card: int, target: str, dice: Dice, square: Loc | None = None) -> bool:
    """11.iii: the Blocker is put back in the square struck (if it had moved on).  An attack: the card's
    attacker shoots it, 1d6 + the bonus (+1 Open Air or Civic) - Strength >= 6 kills (damage.roll_kill);
    a survivor moves on.  A stop: its move is over (CP spent are lost); outside the Command Phase it is
    turned face down.  Returns whether the Blocker was removed."""
    places = hazard_squares(board, card, target)
    at = board.ring.loc(square.block, square.label) if square is not None else places[0]
    f = _played(board, seat, card)
    if where(board, target) != at:
        board.set_blocker(target, loc=str(at), set_up=False)
        board.note("note-hazard-back", blocker=target, square=at)
    moving = phase(board) == "command" and target == last_mover(board)
    if f.effect.type == "hazard-attack":
        board.note("note-hazard-attack", blocker=target, card=f.name, attacker=f.effect["attacker"], square=at)
        dead = roll_kill(board, target, f.effect["bonus"], dice, f"{f.name}: {f.effect['attacker']}")
        if dead and moving:
            end_move(board, target)
        return dead
    board.note("note-hazard-stop", blocker=target, card=f.name, square=at)
    if phase(board) == "command":
        end_move(board, target)
    else:
        board.set_blocker(target, face_down=True)
    return False


# -- 11.iv Attack cards --------------------------------------------------------------------------------


def _attacked(board: Board, bid: str) -> bool:
    return any(n.key in COMBAT_NOTES and dict(n.args).get("blocker") == bid for n in board.notes)


def check_attack(board: Board, seat: str, card: int, blocker: str) -> Message | None:
    """11.iv: any player, in the Defensive Fire or Combat Phase.  ``blocker``: the player's Blocker whose
    roll, or the roll against which, the card changes (in a close combat he chooses it); for a
    cancelled shot, the enemy about to shoot; for an extra attack, his Blocker that attacked."""
    err = _card_error(board, seat, card, "attack")
    if err is not None:
        return err
    f = face(board, card)
    e = f.effect
    if blocker not in board.blockers or where(board, blocker) is None:
        return msg("err-card-off-map", blocker=blocker)
    if e.type == "defensive-fire-range":
        if board.blockers[blocker].face_down:
            return msg("err-card-face-down", blocker=blocker)
        return _own_on_map(board, seat, blocker)
    if e.type == "roll-modifier":
        if phase(board) not in ATTACK_PHASES[e["attack"]]:
            return msg("err-card-when", card=f.name, phase=phase(board))
        return _own_on_map(board, seat, blocker)
    if e.type == "cancel-shot":
        shooters = _active(board) if phase(board) == "combat" else None
        owner = board.owner(blocker)
        if owner == seat or (shooters is not None and owner != shooters) or (shooters is None and owner == _active(board)):
            return msg("err-card-shooter", blocker=blocker)
        if board.blockers[blocker].face_down:
            return msg("err-card-face-down", blocker=blocker)
        return None
    if e.type == "extra-attack":
        err = _own_on_map(board, seat, blocker)
        if err is not None:
            return err
        if not _attacked(board, blocker) or not board.blockers[blocker].face_down:
            return msg("err-card-not-attacked", blocker=blocker)
    return None


def play_attack(board: Board, seat: str, card: int, blocker: str) -> None:
    """11.iv: a card changing dice waits for its roll (``card_bonus``); a cancelled shot turns the
    shooter face down; an extra attack turns the Blocker face up."""
    f = _played(board, seat, card)
    e = f.effect
    if e.type == "roll-modifier":
        board.card_effects.append(CardEffect(card, seat, e["attack"], blocker, e["amount"], e["whose"]))
        board.note("note-card-modifier", blocker=blocker, card=f.name, amount=e["amount"], attack=e["attack"])
    elif e.type == "cancel-shot":
        board.set_blocker(blocker, face_down=True)
        board.note("note-card-cancel-shot", blocker=blocker, card=f.name)
    elif e.type == "extra-attack":
        board.set_blocker(blocker, face_down=False)
        board.note("note-card-extra-attack", blocker=blocker, card=f.name)
    elif e.type == "defensive-fire-range":
        board.card_effects.append(CardEffect(card, seat, "defensive-range", blocker, e["range"], "own"))
        board.note("note-card-ambush", blocker=blocker, card=f.name, range=e["range"])


def _matches(effect: str, attack: str) -> bool:
    return effect == attack or (effect == "shooting" and attack == "defensive-fire")


def card_bonus(board: Board, attack: str, roller: str, target: str | None = None) -> int:
    """11.iv: the modifier the Attack cards played give the next ``attack`` roll of ``roller`` (against
    ``target``), used up: "own" cards on the roller, "enemy" cards on the target.  Pass it as the
    ``bonus`` of combat.py's rolls (close combat: each side's roll with the other as target)."""
    total = 0
    for eff in list(board.card_effects):
        if not _matches(eff.attack, attack):
            continue
        if (eff.whose == "own" and eff.blocker == roller) or (eff.whose == "enemy" and eff.blocker == target):
            total += eff.amount
            board.card_effects.remove(eff)
    return total


# -- 12. The Final Phase -------------------------------------------------------------------------------


def _justice_played(board: Board, seat: str) -> bool:
    state = board.state
    notes = [n for log in state.log if log.turn == state.turn and log.seat == seat for n in log.notes]
    return any(n.key == "note-justice" and dict(n.args).get("seat") == seat for n in notes + board.notes)


def justice_due(board: Board, seat: str) -> bool:
    """12.ii: in the Final Phase the active player must play one Justice card at the start of his Command
    Phase (if he holds one) before anything else."""
    return (board.final and seat == _active(board) and phase(board) == "command" and bool(board.hands.get(seat))
            and not _justice_played(board, seat))


def _arrestable(board: Board) -> list[str]:
    return sorted(board.on_map())


def check_justice(board: Board, seat: str, card: int, targets: Sequence[str] = (), block: str | None = None,
                  square: Loc | None = None) -> Message | None:
    """12.ii: the active player, once, at the start of his Command Phase, in the Final Phase.  ``targets``:
    the Blockers he names (Iso-Cubes, Block Sweep, the fallback); ``block``: the block of a sweep;
    ``square``: where the Judges patrol."""
    if not board.final:
        return msg("err-justice-not-final")
    err = _card_error(board, seat, card, "justice")
    if err is not None:
        return err
    if _justice_played(board, seat):
        return msg("err-justice-once")
    if any(n.key in COMMAND_STARTED for n in board.notes):
        return msg("err-justice-start")
    on_map = _arrestable(board)
    for bid in targets:
        if bid not in on_map:
            return msg("err-card-off-map", blocker=bid)
    if len(set(targets)) != len(targets):
        return msg("err-justice-targets", count=len(targets))
    e = face(board, card).effect
    if e.type == "arrest" and e["chooser"] == "player":
        pool = on_map
        if e["scope"] == "one-block":
            if block is None or block not in board.ring.ids:
                return msg("err-justice-block", block=block or "-")
            pool = [b for b in on_map if _in_block(board, b, block)]
        if e["scope"] == "each-player":
            for s in board.state.seats:
                own = [b for b in pool if board.owner(b) == s.name]
                if len([b for b in targets if b in own]) != min(e["count"], len(own)):
                    return msg("err-justice-targets", count=e["count"])
        elif set(targets) - set(pool) or len(targets) != min(e["count"], len(pool)):
            return msg("err-justice-targets", count=e["count"])
    if e.type == "judge-patrol" and square is None:
        return msg("err-justice-square")
    return None


def _in_block(board: Board, bid: str, block: str) -> bool:
    loc = where(board, bid)
    return loc is not None and block in board.ring.maps_of(loc)


def arrest(board: Board, bid: str, card: str) -> None:
    """12.ii: a Blocker removed by Justice: to the JUSTICE box (not a loss, 12.iii), its counters back to
    their pools; a close combat it was locked in ends."""
    here = where(board, bid)
    board.kill(bid, JUSTICE)
    board.set_blocker(bid, face_down=False, activated=False)
    if board.moving.blocker == bid:
        end_move(board, bid)
    board.note("note-justice-arrest", blocker=bid, card=card, square=here or "")
    if here is not None:
        for other in occupants(board, here):
            o = board.blockers[other]
            if o.locked and not any(board.owner(x) != o.owner for x in occupants(board, here)):
                board.set_blocker(other, locked=False)


def _cheapest(board: Board, seat: str, n: int) -> list[str]:
    own = [b for b in _arrestable(board) if board.owner(b) == seat]
    return sorted(own, key=lambda b: (board.type(b).cost, b))[:n]


def play_justice(board: Board, seat: str, card: int, targets: Sequence[str] = (), block: str | None = None,
                 square: Loc | None = None, choices: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """12.ii: the Justice card's arrests; ``choices``: by seat, the Blockers each owner gives up where the
    owners choose.  Returns the Blockers removed."""
    f = _played(board, seat, card)
    board.note("note-justice", seat=seat, card=f.name)
    e = f.effect
    on_map = _arrestable(board)
    gone: list[str] = []
    if e.type == "arrest":
        if e["chooser"] == "player":
            gone = list(targets)
        else:
            for s in board.state.seats:
                given = [b for b in (choices or {}).get(s.name, ()) if b in on_map and board.owner(b) == s.name]
                given = list(dict.fromkeys(given))[:e["count"]]
                gone += given if given else _cheapest(board, s.name, e["count"])
    elif e.type == "arrest-in-squares":
        gone = [b for b in on_map if (loc := where(board, b)) is not None and square_is(board, loc, e["square"])]
    elif e.type == "arrest-types":
        gone = [b for b in on_map if board.blockers[b].type in e["blockers"]]
    elif e.type == "arrest-carrying":
        want = e["counter"]
        gone = [b for b in on_map if any((ct.heavy if want == "heavy" else ct.key == want) for ct in board.carried(b))]
    elif e.type == "arrest-locked":
        gone = [b for b in on_map if board.blockers[b].locked]
    elif e.type == "judge-patrol":
        assert square is not None
        at = board.ring.loc(square.block, square.label)
        area = {at, *board.ring.neighbours(at)}
        gone = [b for b in on_map if where(board, b) in area]
        board.judges.add(str(at))  # the marker stays: nobody enters the square (12.ii)
        board.note("note-justice-patrol", square=at)
    if not gone:
        others = [b for b in on_map if board.owner(b) != seat]
        named = [b for b in targets if b in on_map]
        gone = (named or others or on_map)[:DECK.rules.justice_fallback]
        if gone:
            board.note("note-justice-fallback", card=f.name)
    for bid in gone:
        arrest(board, bid, f.name)
    return gone


def game_over(board: Board) -> str | None:
    """12.i, 12.iii, 10.iii: "fallen" when every block has fallen; "cleared" when no Blocker is on the map
    and none can come (the Final Phase, or every pile empty); None while the game goes on."""
    if all(b in board.fallen for b in board.ring.ids):
        return "fallen"
    if not board.on_map() and (board.final or not any(board.piles.values())):
        return "cleared"
    return None


# -- what each seat may see ----------------------------------------------------------------------------


def hand(state: State, seat: str, viewer: str | None) -> tuple[int, ...] | None:
    """11.i: a seat's cards, to that seat only (None to anyone else)."""
    return state.seat(seat).hand if viewer == seat else None


def counts(state: State) -> dict[str, object]:
    """11.i: what everyone may know: the cards in each hand, in the deck, set aside, discarded."""
    return {"hands": {s.name: len(s.hand) for s in state.seats}, "deck": len(state.deck),
            "set_aside": len(state.set_aside), "discards": len(state.discards), "final": state.final}


def visible(note: Note, viewer: str | None) -> bool:
    """A note for everyone, or addressed to ``viewer`` (None: a spectator, who reads only the public ones)."""
    return note.to is None or (viewer is not None and viewer in note.to)


def visible_notes(notes: Iterable[Note], viewer: str | None) -> list[Note]:
    return [n for n in notes if visible(n, viewer)]


__all__ = [
    "face", "shuffle", "deal", "draw", "extra_deck_due", "extra_deck", "judges_arrive", "check_command",
    "play_command", "square_is", "last_mover", "passed", "hazard_squares", "check_hazard", "play_hazard",
    "check_attack", "play_attack", "card_bonus", "justice_due", "check_justice", "play_justice", "arrest",
    "game_over", "hand", "counts", "visible", "visible_notes",
]
