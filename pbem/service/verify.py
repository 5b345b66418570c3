"""`pbem verify`: re-check an exported archive offline — the dice against the
revealed seed, every turn replayed from the stored orders, and the hash chain."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pbem.core import registry
from pbem.core.dice import Roll
from pbem.errors import PbemError, VerifyError
from pbem.service.games import genesis_hash_of
from pbem.service.replay import replay, state_hash
from pbem.service.turns import phase_hash_of


@dataclass
class VerifyReport:
    ok: bool
    game: str = ""
    phases: int = 0
    rolls: int = 0
    dice_checked: bool = False
    problem: str = ""
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        if not self.ok:
            return f"FAILED {self.game}: {self.problem}"
        dice = ("every die recomputed from the revealed seed" if self.dice_checked
                else "dice not recomputed: the seed is revealed when the game ends")
        lines = [f"OK {self.game}: {self.phases} phases replayed, {self.rolls} rolls, hash chain intact; {dice}"]
        return "\n".join(lines + self.notes)


def load(path: Path) -> Mapping[str, Any]:
    target = path / "game.json" if path.is_dir() else path
    if not target.exists():
        raise VerifyError(f"no archive at {path} (expected a folder with game.json)")
    try:
        return dict(json.loads(target.read_text(encoding="utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VerifyError(f"{target} is not a pbem archive: {exc}") from exc


def verify_data(data: Mapping[str, Any]) -> VerifyReport:
    game = data.get("game", {})
    report = VerifyReport(ok=False, game=str(game.get("id", "?")))
    try:
        if data.get("format") != "pbem-archive-1":
            raise VerifyError(f"unknown archive format {data.get('format')!r}")
        rules = registry.get(game["kind"])
        if rules.info.version != game["rules_version"]:
            report.notes.append(f"note: archived with rules {game['rules_version']}, checked with {rules.info.version}")
        initial_hash = state_hash(rules, rules.decode_state(data["initial_state"]))
        prev = genesis_hash_of(game["id"], game["kind"], game["rules_version"], game["options"], game["seats"],
                               game["commitment"], initial_hash)
        if prev != data["genesis"]:
            raise VerifyError("the game's start (seats, options, dice commitment or initial position) was altered")
        for step in replay(rules, data):
            ph = step.phase
            where = f"phase {ph['seq']} (turn {ph['turn']}, {ph['name']})"
            if ph["prev_hash"] != prev:
                raise VerifyError(f"{where}: the hash chain is broken (previous hash does not link)")
            from pbem.service.turns import receipt

            for seat, text in ph["orders"].items():
                if ph.get("receipts", {}).get(seat) != receipt(game["id"], int(ph["seq"]), seat, text):
                    raise VerifyError(f"{where}: the receipt of {seat}'s orders does not match them")
            rolls = [Roll(c, int(ph["seq"]), p, s, v) for c, p, s, v in ph["rolls"]]
            link = phase_hash_of(prev, game["id"], int(ph["seq"]), int(ph["turn"]), ph["name"], ph["orders"],
                                 ph["digest"], rolls, ph["state_hash"])
            if link != ph["hash"]:
                raise VerifyError(f"{where}: its hash does not match its content")
            prev = link
            report.phases += 1
            report.rolls += len(step.rolls)
        if prev != data["head_hash"]:
            raise VerifyError("the last phase's hash is not the game's recorded head: phases are missing")
        report.dice_checked = bool(game.get("seed"))
        report.ok = True
    except VerifyError as exc:
        report.problem = str(exc)
    except (KeyError, TypeError, ValueError) as exc:
        report.problem = f"the archive is malformed: {type(exc).__name__}: {exc}"
    except PbemError as exc:
        report.problem = str(exc)
    return report


def verify_path(path: Path) -> VerifyReport:
    try:
        return verify_data(load(path))
    except VerifyError as exc:
        return VerifyReport(ok=False, game=str(path), problem=str(exc))
