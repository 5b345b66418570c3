"""Texts for Block Mania players: the rules summary and order syntax (HELP) and the order template (ORDERS).

The template is what a seat may order now, as comments, above a sheet that is valid as it stands (the
phase's default): set-up (3) the default PLACE lines, the Command Phase (5, 6) PASS or, in the Final Phase,
the JUSTICE line (12.ii), Defensive Fire (7) the shots of the "nearest" policy, the Combat Phase (8) PASS
(mandatory close combats are fought anyway, 8.vi).  The hints are computed on throwaway Boards with the
rule modules' own checks, so the template never offers what the engine would refuse.  Keywords follow
the mail's language; the engine reads both.
"""

from __future__ import annotations

from dataclasses import replace

from typing import Any, Callable, Collection, Final

from pbem.core.i18n import Catalog, msg
from pbem.games.blockmania import combat, deck, movement, plan
from pbem.games.blockmania import state as state_module
from pbem.games.blockmania.blocks import Loc
from pbem.games.blockmania.board import Board, blocks
from pbem.games.blockmania.cards import DECK, Face
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.report import seat_name
from pbem.games.blockmania.state import Standing, State

READY: Final[str] = getattr(state_module, "READY", "ready")
SAMPLE: Final = 12  # squares shown of a Blocker's reach
#: the order keywords of the spec, by language (the parser reads both)
KEYWORDS: Final[dict[str, dict[str, str]]] = {
    "en": {"place": "PLACE", "justice": "JUSTICE", "on": "ON", "block": "BLOCK", "at": "AT", "target": "AT",
           "new": "NEW", "activate": "ACTIVATE", "move": "MOVE", "pickup": "PICKUP", "discard": "DISCARD",
           "give": "GIVE", "to": "TO", "setup": "SETUP", "arm": "ARM", "play": "PLAY", "continue": "CONTINUE",
           "fire": "FIRE", "with": "WITH", "hold": "HOLD", "shoot": "SHOOT", "fight": "FIGHT", "loot": "LOOT",
           "scrawl": "SCRAWL", "burn": "BURN", "douse": "DOUSE", "pass": "PASS", "defensive-fire": "DEFENSIVE FIRE",
           "nearest": "NEAREST", "strongest": "STRONGEST", "never": "NEVER", "ask": "ASK",
           "intercept": "INTERCEPT", "yes": "ON", "no": "OFF", "keep": "KEEP", "drop": "DROP",
           "hazards": "HAZARDS", "kept": "KEPT"},
    "it": {"place": "PIAZZA", "justice": "GIUSTIZIA", "on": "SU", "block": "BLOCCO", "at": "IN", "target": "SU",
           "new": "NUOVO", "activate": "ATTIVA", "move": "MUOVI", "pickup": "RACCOGLI", "discard": "SCARTA",
           "give": "PASSA", "to": "A", "setup": "PREPARA", "arm": "INNESCA", "play": "GIOCA", "continue": "CONTINUA",
           "fire": "FUOCO", "with": "CON", "hold": "FERMO", "shoot": "SPARA", "fight": "COMBATTI",
           "loot": "SACCHEGGIA", "scrawl": "SCRIVI", "burn": "INCENDIA", "douse": "SPEGNI", "pass": "PASSO",
           "defensive-fire": "FUOCO DIFENSIVO", "nearest": "VICINO", "strongest": "FORTE", "never": "MAI",
           "ask": "CHIEDI", "intercept": "INTERCETTA", "yes": "SI", "no": "NO", "keep": "TIENI", "drop": "LASCIA",
           "hazards": "PERICOLI", "kept": "TENUTE"},
}
Text = Callable[..., str]


def _t(catalog: Catalog, lang: str) -> Text:
    def t(key: str, **args: Any) -> str:
        return catalog.text(msg(key, **args), lang)
    return t


def keywords(lang: str) -> dict[str, str]:
    """The mail's language's keywords (Italian for it, English otherwise)."""
    return KEYWORDS["it"] if lang.strip().lower().startswith("it") else KEYWORDS["en"]


def help_text(catalog: Catalog, lang: str) -> str:
    """The rules summary (4: the turn sequence), what each phase asks by mail, the order syntax, the
    standing instructions with their defaults, the readings of the open points players must know (losses,
    collapses, a fallen block's transit, surplus counters), and what is hidden (3, 11.i)."""
    t = _t(catalog, lang)
    keys = ("help-intro", "help-sequence", "help-phases", "help-syntax", "help-standing", "help-readings",
            "help-secrets")
    return "\n\n".join(t(k) for k in keys).rstrip() + "\n"


# -- helpers over the state ----------------------------------------------------------------------------


def _name(loc: Loc | str, block: str) -> str:
    """A square as the orders write it: ``D6`` in the seat's own block, ``keaton:D6`` elsewhere."""
    text = str(loc)
    return text.partition(":")[2] if text.startswith(block + ":") else text


def _phase(catalog: Catalog, lang: str, stage: str) -> str:
    """A stage's name; an unknown stage prints as itself, never as a catalog key."""
    key = f"phase-{stage}"
    return catalog.text(msg(key), lang) if catalog.has(key) or catalog.has(key, lang) else stage


def _standing(state: State, seat: str) -> Standing:
    """``State.standing`` follows the seats' order; a seat without an entry has the defaults."""
    names = [s.name for s in state.seats]
    i = names.index(seat) if seat in names else len(state.standing)
    return state.standing[i] if i < len(state.standing) else Standing()


def _blocker_label(board: Board, bid: str) -> str:
    t = board.type(bid)
    carried = list(board.blockers[bid].carried)
    return f"{bid} {t.name} {t.strength}-{t.move}" + (f" [{', '.join(carried)}]" if carried else "")


def _face(number: int, final: bool) -> Face | None:
    try:
        card = DECK.card(number)
    except KeyError:
        return None
    return card.justice if final else card.mania


# -- set-up (3) -----------------------------------------------------------------------------------------


def setup_lines(t: Text, kw: dict[str, str], state: State, seat: str) -> tuple[list[str], list[str]]:
    """3: the READY Blockers, the free squares of the seat's block, and the engine's default as the body."""
    board = Board(state)
    block = state.seat(seat).block
    ready = sorted(b.id for b in state.blockers if b.owner == seat and b.loc == READY)
    notes = ["# " + t("tpl-setup")]
    notes += ["#   " + _blocker_label(board, bid) for bid in ready]
    free = plan.placeable(board, seat)
    notes.append("# " + t("tpl-free", squares=" ".join(_name(q, block) for q in free) or "-"))
    body = [f"{kw['place']} {bid} {_name(q, block)}" for bid, q in plan.default_places(board, seat)]
    return notes, body


# -- the Command Phase (5, 6, 11.ii, 12.ii) ----------------------------------------------------------------


def _reach_text(board: Board, bid: str, points: int | None, block: str) -> tuple[int, str]:
    """How many squares and a sample, the farthest first (the cheapest path's MP)."""
    reach = movement.reachable(board, bid, points)
    cost = {loc: sum(s.cost for s in path) for loc, path in reach.items()}
    far = sorted(reach, key=lambda q: (-cost[q], str(q)))
    sample = " ".join(_name(q, block) for q in far[:SAMPLE]) + (" ..." if len(far) > SAMPLE else "")
    return len(reach), sample or "-"


def blocker_hint(catalog: Catalog, lang: str, state: State, bid: str, block: str) -> list[str]:
    """One of the seat's Blockers: where it is, whether it may be activated and where it could go."""
    t = _t(catalog, lang)
    board = Board(state)
    b = board.blockers[bid]
    bt = board.type(bid)
    lines = ["# " + t("tpl-blocker", blocker=_blocker_label(board, bid), cost=bt.cost,
                      square=_name(b.loc, block))]
    if board.moving.blocker == bid:
        count, sample = _reach_text(board, bid, None, block)
        lines.append("#   " + t("tpl-moving-reach", mp=board.moving.mp, count=count, squares=sample))
    else:
        why = movement.check_activate(board, bid)
        if why is None:
            trial = Board(state)
            movement.activate(trial, bid)
            count, sample = _reach_text(trial, bid, bt.move, block)
            lines.append("#   " + (t("tpl-can-activate", mp=bt.move, count=count, squares=sample) if count
                                     else t("tpl-stuck")))
        else:
            lines.append("#   " + t("tpl-cannot-activate", why=catalog.text(why, lang)))
    if movement.check_pick_up(board, bid) is None:
        lines.append("#   " + t("tpl-pickup", blocker=bid))
    return lines


def card_lines(t: Text, kw: dict[str, str], hand: Collection[int], stage: str, active: bool,
               final: bool) -> list[str]:
    """11: the Mania cards of the hand this seat may play in this phase (none in the Final Phase, 12.ii)."""
    if final:
        return []
    out = []
    for n in hand:
        face = _face(n, False)
        if face is not None and face.playable(stage, active):
            out.append(f"#   {kw['play']} {n}    {face.name} ({t('value-kind-' + face.kind.key)})")
    return ["# " + t("tpl-cards")] + out if out else []


def justice_lines(t: Text, kw: dict[str, str], hand: Collection[int]) -> tuple[list[str], list[str]]:
    """12.ii: exactly one Justice card at the start of the Command Phase; the default plays the first."""
    faces = [(n, _face(n, True)) for n in hand]
    notes = ["# " + t("tpl-final")]
    notes += [f"#   {kw['justice']} {n}    {f.name}" for n, f in faces if f is not None]
    body = [f"{kw['justice']} {faces[0][0]}"] if faces else []
    return notes, body


def command_lines(catalog: Catalog, lang: str, kw: dict[str, str], state: State,
                  seat: str) -> tuple[list[str], list[str]]:
    """5, 6: the CP, NEW, each Blocker's activation and reach, the cards; the body PASS or JUSTICE (12.ii)."""
    t = _t(catalog, lang)
    board = Board(state)
    block = state.seat(seat).block
    notes: list[str] = []
    body: list[str] = []
    hand = state.seat(seat).hand
    if state.final:
        notes, body = justice_lines(t, kw, hand)
    notes.append("# " + t("tpl-command-points", points=state.command_points, cost=ROSTER.rules.new_blocker_cost))
    why = movement.check_new_blocker(board, seat)
    notes.append("# " + (t("tpl-new", cost=ROSTER.rules.new_blocker_cost) if why is None
                         else t("tpl-no-new", why=catalog.text(why, lang))))
    mine = [bid for bid in sorted(board.on_map())
            if board.owner(bid) == seat or (board.type(bid).has("anyone-activates")
                                            and movement.check_activate(board, bid) is None)]
    for bid in mine:
        notes += blocker_hint(catalog, lang, state, bid, block)
    notes += card_lines(t, kw, hand, "command", True, state.final)
    notes.append("# " + t("tpl-continue"))
    return notes, body


# -- Defensive Fire (7) and the Combat Phase (8) -------------------------------------------------------------


def defensive_lines(catalog: Catalog, lang: str, kw: dict[str, str], state: State,
                    seat: str) -> tuple[list[str], list[str]]:
    """7: the seat's face-up Blockers one square from an active Blocker; the body is the "nearest" choice."""
    t = _t(catalog, lang)
    board = Board(state)
    notes = ["# " + t("tpl-defensive")]
    body = []
    enemies = sorted(board.on_map(combat.active(board)))
    for bid in sorted(board.on_map(seat)):
        if board.blockers[bid].face_down:
            continue
        options = [f"{kw['fire']} {bid} {kw['target']} {e} {kw['with']} {w}"
                   for w in combat.defensive_weapons(board, bid) for e in enemies
                   if combat.check_defensive_fire(board, bid, e, w) is None]
        if not options:
            continue
        notes.append("# " + t("tpl-may-fire", blocker=_blocker_label(board, bid)))
        notes += ["#   " + o for o in options] + [f"#   {kw['hold']} {bid}"]
        choice = combat.choose_defensive_fire(board, bid, "nearest")
        if choice is not None:
            body.append(f"{kw['fire']} {bid} {kw['target']} {choice[0]} {kw['with']} {choice[1]}")
    if not body:
        notes.append("# " + t("tpl-no-fire"))
    notes += card_lines(t, kw, state.seat(seat).hand, "defensive-fire", False, state.final)
    return notes, body


def _attacks(board: Board, kw: dict[str, str], bid: str) -> list[str]:
    """8.ii: the attacks ``bid`` could make now: shots (8.v), then loot, scrawl, set fire."""
    out = []
    enemies = [e for e in sorted(board.on_map()) if board.owner(e) != board.owner(bid)]
    for w in board.blockers[bid].carried:
        for e in enemies:
            if combat.check_shoot(board, bid, w, target=e) is None:
                out.append(f"{kw['shoot']} {bid} {kw['target']} {e} {kw['with']} {w}")
    for key, check in (("loot", combat.check_loot), ("scrawl", combat.check_scrawl), ("burn", combat.check_set_fire)):
        if check(board, bid) is None:
            out.append(f"{kw[key]} {bid}")
    return out


def combat_lines(catalog: Catalog, lang: str, kw: dict[str, str], state: State,
                 seat: str) -> tuple[list[str], list[str]]:
    """8: the close combats due and each face-up Blocker's possible attacks; the body PASS (8.vi: the
    combats due are fought anyway)."""
    t = _t(catalog, lang)
    board = Board(state)
    notes = ["# " + t("tpl-combat")]
    pending = combat.pending_close_combats(board)
    if pending:
        notes.append("# " + t("tpl-close"))
        notes += [f"#   {kw['fight']} {a} {e}" for a, e in pending]
    for bid in sorted(board.on_map(seat)):
        if board.blockers[bid].face_down:
            continue
        options = _attacks(board, kw, bid)
        if options:
            notes.append("# " + t("tpl-may-attack", blocker=_blocker_label(board, bid)))
            notes += ["#   " + o for o in options]
    notes.append("# " + t("tpl-douse", douse=kw["douse"]))
    notes += card_lines(t, kw, state.seat(seat).hand, "combat", True, state.final)
    return notes, []


# -- the template ---------------------------------------------------------------------------------------


def standing_lines(catalog: Catalog, lang: str, kw: dict[str, str], state: State, seat: str) -> list[str]:
    """The standing instructions (7, 6.iii, 10.ii, 11.iii-iv) with their values now, all commented."""
    t = _t(catalog, lang)
    s = _standing(state, seat)
    keep: tuple[int, ...] = tuple(getattr(s, "keep", ()))
    discard: int = int(getattr(s, "discard", 0) or 0)
    policy = kw.get(s.defensive_fire, s.defensive_fire.upper())
    intercept = kw["yes"] if s.intercept_lifts else kw["no"]
    policies = "|".join(kw[p] for p in ("nearest", "strongest", "never", "ask"))
    return ["# " + t("tpl-standing", policy=policy, intercept=intercept,
                     keep=" ".join(str(n) for n in keep) or "-", discard=discard or "-"),
            f"#   {kw['defensive-fire']} {policies}",
            f"#   {kw['intercept']} {kw['yes']}|{kw['no']}",
            f"#   {kw['hazards']} {kw['ask']}|{kw['kept']}" + ("    (" + (kw["ask"] if s.hazards_ask else kw["kept"]) + ")"),
            f"#   {kw['keep']} n / {kw['drop']} n / {kw['discard']} n"]


def hazard_lines(t: Text, kw: dict[str, str], state: State, seat: str) -> list[str]:
    """11.iii: the Blocker that moved and the Hazard cards of the hand that may strike it (or any Blocker in
    a square of the card's kind); the body stays PASS: no card is the default."""
    board = Board(replace(state, stage="command"))
    out = ["# " + t("tpl-hazards", blocker=state.mover, squares=", ".join(state.passed) or "-")]
    for n in state.seat(seat).hand:
        face = _face(n, False)
        if face is not None and face.kind.key == "hazard" and deck.check_hazard(board, seat, n, state.mover) is None:
            out.append(f"#   {kw['play']} {n} {kw['target']} {state.mover}    {face.name} ({face.square})")
    return out


def template_text(catalog: Catalog, state: State, seat: str, lang: str, awaiting: Collection[str]) -> str:
    """What ``seat`` may order now, commented, above a sheet valid as it stands; one comment line for a
    seat the phase does not wait for."""
    t = _t(catalog, lang)
    kw = keywords(lang)
    stage = state.stage
    active = state.active_seat.name if 0 <= state.active < len(state.seats) else "-"
    if stage == "over":
        return "# " + t("tpl-over") + "\n"
    if seat not in awaiting:
        named = [seat_name(catalog, lang, other) for other in awaiting]  # as the reader names seats
        return "# " + t("tpl-not-yours", phase=_phase(catalog, lang, stage), seat=seat_name(catalog, lang, active),
                        awaiting=", ".join(named) or "-") + "\n"
    block = state.seat(seat).block
    out = ["# " + t("tpl-phase", phase=_phase(catalog, lang, stage), turn=state.turn,
                    seat=seat_name(catalog, lang, seat), block=blocks().block(block).name)]
    notes: list[str] = []
    body: list[str] = []
    if stage == "setup":
        notes, body = setup_lines(t, kw, state, seat)
    elif stage == "command":
        notes, body = command_lines(catalog, lang, kw, state, seat)
    elif stage == "defensive-fire":
        notes, body = defensive_lines(catalog, lang, kw, state, seat)
    elif stage == "combat":
        notes, body = combat_lines(catalog, lang, kw, state, seat)
    elif stage == "hazards":
        notes = hazard_lines(t, kw, state, seat)
    out += notes + standing_lines(catalog, lang, kw, state, seat)
    out.append("# " + t("tpl-body"))
    out += body or [kw["pass"]]
    return "\n".join(out) + "\n"


__all__ = ["KEYWORDS", "help_text", "keywords", "template_text"]
