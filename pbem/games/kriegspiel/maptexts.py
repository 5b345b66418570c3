"""The Kriegspiel map's own words, in English and Italian (the title bar, legend and labels)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pbem.games.kriegspiel.geometry import SIDE_SLOTS


_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "game": "Kriegspiel",
        "turn": "turn {turn}",
        "deploy": "deployment phase",
        "north": "North",
        "south": "South",
        "to_move": "{side} to move",
        "to_deploy": "both sides place their units",
        "over": "game over",
        "win": "{sides} win{s}",
        "draw": "draw",
        "reason.arsenals": "both arsenals destroyed",
        "reason.annihilation": "no combat units left",
        "reason.communications": "relays lost, army cut off",
        "reason.agreement": "by agreement",
        "reason.resignation": "resignation",
        "view_of": "map of {side}",
        "spectator": "spectator's map",
        "hidden": "{sides}: deployment sealed",
        "hidden_board": "{side}'s deployment is sealed",
        "hidden_board2": "until both sides have deployed",
        "draw_offer": "{side} offers a draw",
        "last_turn": "Last turn ({side}, turn {turn}):",
        "moves": "{n} moves",
        "move1": "1 move",
        "no_moves": "no moves",
        "attack_on": "attack on {square} {a} : {d}, {result}",
        "no_attack": "no attack",
        "arsenal_destroyed": "arsenal {square} destroyed",
        "result.none": "held",
        "result.retreat": "must retreat",
        "result.captured": "captured",
        "captured_n": "{n} captured",
        "legend.units": "Units",
        "legend.terrain": "Terrain",
        "legend.marks": "Marks",
        "infantry": "Infantry",
        "cavalry": "Cavalry",
        "artillery": "Artillery",
        "horse_artillery": "Horse artillery",
        "relay": "Relay",
        "horse_relay": "Horse relay",
        "mountain": "Mountain (impassable)",
        "pass": "Pass (+2 defence)",
        "fort": "Fortress (+4 defence)",
        "arsenal": "Arsenal",
        "ruin": "Destroyed arsenal",
        "line": "Line of communication",
        "move": "Move (last turn)",
        "forced": "Forced move (retreat)",
        "target": "Attacked square",
        "attacker": "Attacker, its value",
        "defender": "Defender, its value",
        "captured": "Captured last turn",
        "cut": "Cut off from the lines",
        "retreat": "Must retreat this turn",
    },
    "it": {
        "game": "Kriegspiel",
        "turn": "turno {turn}",
        "deploy": "fase di schieramento",
        "north": "Nord",
        "south": "Sud",
        "to_move": "muove {side}",
        "to_deploy": "entrambi dispongono le unità",
        "over": "partita finita",
        "win": "vince {sides}",
        "draw": "patta",
        "reason.arsenals": "arsenali distrutti",
        "reason.annihilation": "nessuna unità combattente",
        "reason.communications": "staffette perse, esercito isolato",
        "reason.agreement": "per accordo",
        "reason.resignation": "abbandono",
        "view_of": "mappa di {side}",
        "spectator": "mappa per spettatori",
        "hidden": "{sides}: schieramento segreto",
        "hidden_board": "Lo schieramento di {side} è segreto",
        "hidden_board2": "finché entrambi non hanno schierato",
        "draw_offer": "{side} propone la patta",
        "last_turn": "Ultimo turno ({side}, turno {turn}):",
        "moves": "{n} mosse",
        "move1": "1 mossa",
        "no_moves": "nessuna mossa",
        "attack_on": "attacco su {square} {a} : {d}, {result}",
        "no_attack": "nessun attacco",
        "arsenal_destroyed": "arsenale {square} distrutto",
        "result.none": "respinto",
        "result.retreat": "deve ritirarsi",
        "result.captured": "catturata",
        "captured_n": "{n} catturate",
        "legend.units": "Unità",
        "legend.terrain": "Terreno",
        "legend.marks": "Segni",
        "infantry": "Fanteria",
        "cavalry": "Cavalleria",
        "artillery": "Artiglieria",
        "horse_artillery": "Artiglieria a cavallo",
        "relay": "Staffetta",
        "horse_relay": "Staffetta a cavallo",
        "mountain": "Montagna (invalicabile)",
        "pass": "Passo (+2 difesa)",
        "fort": "Fortezza (+4 difesa)",
        "arsenal": "Arsenale",
        "ruin": "Arsenale distrutto",
        "line": "Linea di comunicazione",
        "move": "Mossa (ultimo turno)",
        "forced": "Mossa forzata (ritirata)",
        "target": "Casella attaccata",
        "attacker": "Attaccante, suo valore",
        "defender": "Difensore, suo valore",
        "captured": "Catturata nell'ultimo turno",
        "cut": "Isolata dalle linee",
        "retreat": "Deve ritirarsi ora",
    },
}


def _t(lang: str, key: str, **args: object) -> str:
    table = _TEXTS.get(lang) or _TEXTS["en"]
    template = table.get(key) or _TEXTS["en"].get(key) or key
    try:
        return template.format(**args)
    except (KeyError, IndexError, ValueError):
        return template


def _lang(view: Mapping[str, Any], lang: str | None) -> str:
    code = (lang or view.get("lang") or view.get("language") or "en")
    code = str(code).strip().lower()[:2]
    return code if code in _TEXTS else "en"


def _side_name(lang: str, side: object) -> str:
    if side in SIDE_SLOTS:
        return _t(lang, str(side))
    return str(side)
