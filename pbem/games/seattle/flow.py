"""The course of a turn (3.0-3.4): set-up, the random event and the reinforcements, the two
player turns, the end phase, night, and the end of the game.

Phases where nobody has anything to do are passed over with a note (a reaction with a limit
of 0, a combat phase with no area holding both sides), so nothing waits on a player who is
not to act.  All chance goes through the `Dice`: draws "a caso" from the off-map piles are a
roll over the counters left, like every die.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.dice import Dice
from pbem.games.seattle.board import Board
from pbem.games.seattle.combat import clear_barricades, fight
from pbem.games.seattle.map import MAP
from pbem.games.seattle.orders import Attack, Barricade, Order, Points, Targets, DefenceMunitions
from pbem.games.seattle.plan import plan_orders
from pbem.games.seattle.state import (
    AUTH,
    AWAY,
    DEM,
    DESK,
    FESTIVAL,
    OUT,
    PILE,
    RESERVE,
    BarricadeTry,
    EventInForce,
    Pending,
    Result,
    Standing,
    State,
    track,
    track_turn,
)
from pbem.games.seattle.tables import TABLES
from pbem.errors import RulesError

#: The stages of a turn, in order (tables.toml [sequence]; set-up before turn 1).
SEQUENCE = TABLES.sequence
PLAYER_STAGES = {
    "setup": (DEM,),
    "demonstrator-movement": (DEM,),
    "authority-reaction": (AUTH,),
    "demonstrator-combat": (DEM,),
    "authority-movement": (AUTH,),
    "demonstrator-reaction": (DEM,),
    "authority-combat": (AUTH,),
}


def awaiting(state: State) -> tuple[str, ...]:
    if state.stage == "reinforcements":
        p = state.pending
        dem = p is not None and bool(p.arrivals or p.choose or p.group_removals or p.attrition)
        return (DEM, AUTH) if dem else (AUTH,)
    return PLAYER_STAGES.get(state.stage, ())


def draw(board: Board, candidates: list[str], dice: Dice, purpose: str) -> str | None:
    """A counter drawn at random (4.21 "a caso"): a die over the counters left, in id order."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    return candidates[dice.roll(len(candidates), purpose) - 1]


# -- set-up --------------------------------------------------------------------------------


def setup_draw(state: State, dice: Dice) -> State:
    """Istruzioni: one SPD in the Convention Center, index 30 and 0, five Crowds drawn at random
    for the Demonstrators to place in the downtown core."""
    board = Board(state)
    s = TABLES.setup
    spd = [u for u in board.units(AUTH, PILE) if board.type(u).key == "spd"][:s.spd_on_map]
    for u in spd:
        board.put(u, s.spd_area, "place")
    crowds: list[str] = []
    for i in range(s.random_crowds):
        pool = [u for u in board.units(DEM, PILE) if board.kind(u) == "crowd" and u not in crowds]
        drawn = draw(board, pool, dice, f"set-up: Crowd {i + 1} of {s.random_crowds}")
        if drawn is not None:
            crowds.append(drawn)
    board.vis = {DEM: s.demonstrators_visibility, AUTH: s.authorities_visibility}
    return board.frozen("setup-draw", True, stage="setup", pending=Pending(arrivals=tuple(crowds)))


# -- the random event and reinforcements (4.1, 4.2) ------------------------------------------


def begin_turn(state: State, dice: Dice) -> State:
    """3.2: the random event (two dice, tens and units), then what the reinforcement phase
    brings: arrivals from the turn track, the morning's return, the table of 4.21."""
    turn = state.turn + 1
    state = replace(state, turn=turn, engaged=())
    board = Board(state)
    tens = dice.roll(TABLES.die, "random event: tens")
    units = dice.roll(TABLES.die, "random event: units")
    ev = TABLES.event_for_dice(tens, units)
    amount = 0
    arrivals: list[str] = []
    night = TABLES.turn(turn).night
    morning = TABLES.turn(turn).period.key == "morning"
    attrition = bureaucracy = False
    if ev.key == "random-reinforcements":
        assert ev.dice is not None
        amount = -(-ev.dice.value(lambda: dice.roll(TABLES.die, "random reinforcements: 1d6, halved")) // 2)
    elif ev.key == "folk-festival":
        # "Tutte le unità dei Progressisti": those on the map, in the pile, and those away for
        # the night (already in AWAY: they stay there until the next day's morning).
        for u in board.units(DEM):
            if board.types[u] == ev.faction:
                if board.on_map(u):
                    board.put(u, AWAY, "festival")
                elif board.loc[u] == PILE:
                    board.put(u, FESTIVAL, "festival")
    elif ev.key == "hey-beavis":
        assert ev.dice is not None
        amount = ev.dice.value(lambda: dice.roll(TABLES.die, "Hey Beavis: Opportunists arriving"))
        arrivals += [u for u in board.units(DEM, PILE) if board.types[u] == ev.faction][:amount]
    elif ev.key in ("go-slow", "rapid-response"):
        for u, loc in list(board.loc.items()):
            t = track_turn(loc)
            if t is not None:
                board.loc[u] = track(max(turn, t + ev.arrival_delay))
    elif ev.key == "bureaucracy":
        bureaucracy = any(board.type(u).key == "spd" and board.loc[u] not in (OUT, DESK) for u in board.units(AUTH))
    if ev.visibility_authorities:
        board.add_vis(AUTH, ev.visibility_authorities, ev.key)
    if ev.visibility_demonstrators:
        board.add_vis(DEM, ev.visibility_demonstrators, ev.key)
    event = EventInForce(turn, tens * 10 + units, ev.key, amount)
    board.state = replace(board.state, event=event)

    # 4.22: units on the turn track reach the Reserve Pool in their turn.
    for u, loc in list(board.loc.items()):
        t = track_turn(loc)
        if t is not None and t <= turn:
            board.put(u, RESERVE, "arrive")
    # 7.1: the morning brings back the Crowds of the night (and the folk festival's).  Event 24:
    # the Progressives "riappariranno solo nel turno di gioco della mattina del giorno
    # successivo": rolled this morning, they wait for tomorrow's, not this one's.
    if morning:
        festival = ev.faction if ev.key == "folk-festival" else None
        arrivals += [u for u in board.units(DEM, AWAY) if board.types[u] != festival]
        for u in board.units(DEM, FESTIVAL):
            if board.types[u] != festival:
                board.put(u, PILE, "festival-over")

    # Event 51-53: "una unità Folla a sua scelta" - on the map, or back from the night this
    # morning (every Crowd in play is off the map until this phase places it).
    if ev.key == "attrition":
        attrition = any(board.kind(u) == "crowd" for u in board.map_units(DEM) + arrivals)

    # 4.21: the table, each side by its own index.
    dem_band = TABLES.reinforcement(board.vis[DEM])
    groups = dem_band.groups.value(lambda: dice.roll(TABLES.die, "reinforcements: Demonstrator Groups"))
    crowds = dem_band.crowds.value(lambda: dice.roll(TABLES.die, "reinforcements: Demonstrator Crowds"))
    board.rolls.append(("reinforcement-groups", groups))
    board.rolls.append(("reinforcement-crowds", crowds))
    group_removals = 0
    held: list[str] = []
    for _ in range(max(0, groups)):
        pool = [u for u in board.units(DEM, PILE) if board.kind(u) == "group" and u not in arrivals]
        group = draw(board, pool, dice, "reinforcements: a Group drawn from the pile")
        if group is None:
            break
        arrivals.append(group)
    if groups < 0:
        group_removals = min(-groups, sum(1 for u in board.map_units(DEM) if board.kind(u) == "group"))
    for _ in range(max(0, crowds)):
        pool = [u for u in board.units(DEM, PILE) if board.kind(u) == "crowd" and u not in arrivals]
        crowd = draw(board, pool, dice, "reinforcements: a Crowd drawn from the pile")
        if crowd is None:
            break
        if night:
            board.put(crowd, AWAY, "held")  # 7.1: Crowds join in the morning
            held.append(crowd)
        else:
            arrivals.append(crowd)
    auth_band = TABLES.reinforcement(board.vis[AUTH])
    spd = auth_band.spd.value()
    spd_arrivals = tuple([u for u in board.units(AUTH, PILE) if board.type(u).key == "spd"][:max(0, spd)])
    spd_removals = 0
    if spd < 0:
        spd_removals = min(-spd, sum(1 for u in board.units(AUTH) if board.type(u).key == "spd"
                                     and (board.on_map(u) or board.loc[u] == RESERVE)))
    if arrivals:
        board.notes.append(("note-arrivals", " ".join(arrivals)))
    if held:
        board.notes.append(("note-held", " ".join(held)))
    pending = Pending(tuple(arrivals), amount if ev.key == "random-reinforcements" else 0,
                      board.vis[DEM] >= board.vis[AUTH] and not night, group_removals, 0,
                      spd_arrivals, spd_removals, attrition, bureaucracy, tuple(held))
    return board.frozen("random-event", True, stage="reinforcements", event=event, pending=pending)


# -- the phases players answer ------------------------------------------------------------------


def _standing(state: State, side: str, orders: tuple[Order, ...]) -> State:
    """Standing instructions in a sheet replace the side's earlier ones (6.3)."""
    s = state.standing(side)
    for o in orders:
        if isinstance(o, Targets):
            s = replace(s, targets=o.items)
        elif isinstance(o, Points):
            s = replace(s, visibility=o.side)
        elif isinstance(o, DefenceMunitions):
            s = replace(s, munitions_in_defence=o.on)
    return replace(state, standing_dem=s) if side == DEM else replace(state, standing_auth=s)


def play(state: State, sheets: dict[str, tuple[Order, ...]], dice: Dice) -> State:
    """Resolve the current player phase with the awaited sides' orders."""
    stage = state.stage
    for side in awaiting(state):
        state = _standing(state, side, sheets.get(side, ()))
    if stage == "reinforcements":
        # Simultaneous (3.2): each sheet was checked against the position at the phase's start.
        dem = plan_orders(state, DEM, sheets.get(DEM, ())) if DEM in awaiting(state) else None
        auth = plan_orders(state, AUTH, sheets.get(AUTH, ()))
        for planner in (dem, auth):
            if planner is not None and not planner.ok:
                raise RulesError(f"invalid sheet: {[d.message.key for d in planner.diagnostics]}")
        board = auth.board
        if dem is not None:
            for u in dem.board.loc:
                if dem.board.loc[u] != state_loc(state, u):
                    board.loc[u] = dem.board.loc[u]
            board.moves[:0] = dem.board.moves
            board.notes[:0] = dem.board.notes
        calls = sum(1 for m in board.moves if m.kind == "call")
        if calls:
            board.add_vis(AUTH, TABLES.rules.emergency_visibility * calls, "emergency-reinforcement", calls)
        return after(board, stage, dice, pending=None)
    side = awaiting(state)[0]
    planner = plan_orders(state, side, sheets.get(side, ()))
    if not planner.ok:
        raise RulesError(f"invalid sheet for {side}: {[d.message.key for d in planner.diagnostics]}")
    board = planner.board
    if stage == "setup":
        return after(board, stage, dice, pending=None)
    if stage == "demonstrator-movement":
        built: set[str] = set()
        for o in planner.orders:
            if isinstance(o, Barricade):
                area = board.loc[o.unit]
                if area in board.barricades or area in built:
                    continue  # 7.2: one barricade per area; the others need not try
                faces = TABLES.rules.barricade_roll[board.kind(o.unit)]
                roll = dice.roll(TABLES.die, f"barricade by {o.unit} in {area}")
                ok = roll in faces and len(board.barricades) < TABLES.markers[0].count
                board.barricade_tries.append(BarricadeTry(o.unit, area, roll, ok))
                if ok:
                    board.barricades.add(area)
                    built.add(area)
    if stage.endswith("-combat"):
        attacks = [o for o in planner.orders if isinstance(o, Attack)]
        # Event 45-46: the bonus is lost in every area where the sheet attacks a Crowd ("non può
        # attaccare nessuna unità Folla in queste aree").
        crowds_attacked = frozenset(board.loc[o.attackers[0]] for o in attacks
                                    if any(board.kind(u) == "crowd" for u in o.defenders))
        for o in attacks:
            fight(board, side, o, dice, crowds_attacked)
        clear_barricades(board)
        board.engaged.clear()
    return after(board, stage, dice)


def state_loc(state: State, unit: str) -> str:
    return next(u.loc for u in state.units if u.id == unit)


# -- what comes next -----------------------------------------------------------------------------


def next_stage(stage: str) -> str:
    if stage == "setup":
        return "random-event"
    i = SEQUENCE.index(stage)
    return SEQUENCE[i + 1] if i + 1 < len(SEQUENCE) else "random-event"


def has_work(board: Board, stage: str) -> bool:
    """Whether the side of a player phase has anything it may do (else it is passed over)."""
    from pbem.games.seattle.plan import Planner

    if stage in ("demonstrator-movement", "authority-movement"):
        side = DEM if stage.startswith("demonstrator") else AUTH
        return bool(board.map_units(side)) or (side == AUTH and bool(board.units(AUTH, RESERVE)))
    if stage.endswith("-reaction"):
        side = AUTH if stage.startswith("authority") else DEM
        if board.reaction_limit(side) == 0:
            return False
        p = Planner(board_state(board, stage), side)
        return bool(p.movable()) or (side == AUTH and bool(board.units(AUTH, RESERVE)))
    if stage.endswith("-combat"):
        side = DEM if stage.startswith("demonstrator") else AUTH
        return bool(Planner(board_state(board, stage), side).attackers())
    return True


def board_state(board: Board, stage: str) -> State:
    return board.frozen(stage, True, stage=stage)


def after(board: Board, stage: str, dice: Dice, **changes: object) -> State:
    """The state after ``stage``: the next stage, passing over player phases with nothing to
    do (noted for the report)."""
    nxt = next_stage(stage)
    keep = stage not in PLAYER_STAGES and stage != "reinforcements"
    state = board.frozen(stage, keep, stage=nxt, **changes)
    while nxt in PLAYER_STAGES and not has_work(Board(state), nxt):
        notes: tuple[tuple[str, str], ...] = (("note-passed", nxt),)
        if nxt.endswith("-combat"):
            # 7.2: "alla fine di ogni fase di combattimento": a phase passed over ends too.
            board = Board(state)
            clear_barricades(board)
            state = replace(state, barricades=tuple(sorted(board.barricades)))
            notes += tuple(board.notes)
        log = state.log[:-1] + (replace(state.log[-1], notes=state.log[-1].notes + notes),)
        nxt = next_stage(nxt)
        state = replace(state, stage=nxt, log=log)
    return state


def end_phase(state: State) -> State:
    """3.4 and the visibility table's end-phase rows; night falls (7.1); the end (8.0)."""
    board = Board(state)
    turn = TABLES.turn(state.turn)
    held = [a for a in MAP.core if board.at(a.id, DEM)]
    if held:
        board.add_vis(DEM, sum(a.exposure for a in held), "core-area-held", len(held))
    dem_on_map = board.map_units(DEM)
    if not dem_on_map:
        board.add_vis(AUTH, 20, "no-demonstrators")
    elif not turn.night and not any(board.kind(u) == "crowd" for u in dem_on_map):
        board.add_vis(AUTH, 10, "no-crowds-by-day")
    spd = sum(1 for u in board.map_units(AUTH) if board.type(u).key == "spd")
    if spd:
        board.add_vis(AUTH, TABLES.spd_visibility(spd), "spd-on-map", spd)
    if state.turn >= state.last_turn:
        new = board.frozen("end", True, stage="over", pending=None)
        level = TABLES.victory_level(new.vis_dem, new.vis_auth, new.escalation)
        winner = AUTH if level == "authorities" else DEM
        return replace(new, result=Result(winner, level, new.vis_dem, new.vis_auth))
    if TABLES.turn(state.turn + 1).night:
        for u in dem_on_map:
            if board.kind(u) == "crowd":
                board.night_away(u)
    return board.frozen("end", True, stage="random-event", pending=None)


__all__ = ["awaiting", "setup_draw", "begin_turn", "play", "end_phase", "fight", "Standing", "Order"]
