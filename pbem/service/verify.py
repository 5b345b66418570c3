"""`pbem verify`: re-check an exported archive offline — the dice against the
revealed seed, every turn replayed from the stored orders, and the hash chain."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.core import registry
from pbem.core.dice import Roll
from pbem.errors import PbemError, VerifyError
from pbem.service.games import genesis_hash_of
from pbem.service.replay import replay, state_hash
from pbem.service.turns import phase_hash_of

FORMAT = "pbem-archive-1"
#: What observers may see of a game (``pbem archive export --redacted``): nothing to replay.
REDACTED_FORMAT = "pbem-archive-redacted-1"
log = logging.getLogger(__name__)


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


def load(path: Path) -> Any:
    """The archive's JSON, whatever its shape (`verify_data` judges it)."""
    target = path / "game.json" if path.is_dir() else path
    if not target.is_file():
        raise VerifyError(f"no archive at {path} (expected a folder with game.json)")
    try:
        return json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise VerifyError(f"{target} is not a pbem archive: {exc}") from exc


def _need(where: str, value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):  # JSON true is no number
        raise VerifyError(f"the archive is malformed: {where} must be {what}, not {type(value).__name__}")
    return value


def _text_map(where: str, value: Any) -> None:
    _need(where, value, dict, "an object")
    for key, text in value.items():
        _need(f"{where}[{key!r}]", text, str, "a text")


def check_shape(data: Any) -> None:
    """Every member the checks read, with its type, before anything reads it: a file that is not
    an archive gets a reason, never an exception (issue 24.10)."""
    _need("the top level", data, dict, "an object")
    if data.get("format") != FORMAT:
        if data.get("format") == REDACTED_FORMAT:
            raise VerifyError("a redacted archive (what observers may see) has no orders or sealed dice to replay; "
                              "verify the full archive, exported once the game has ended")
        raise VerifyError(f"unknown archive format {data.get('format')!r:.80}")
    game = _need("game", data.get("game"), dict, "an object")
    for key in ("id", "kind", "rules_version", "commitment"):
        _need(f"game.{key}", game.get(key), str, "a text")
    _need("game.options", game.get("options"), dict, "an object")
    for i, seat in enumerate(_need("game.seats", game.get("seats"), list, "a list")):
        _need(f"game.seats[{i}]", seat, str, "a text")
    if game.get("seed") is not None:
        _need("game.seed", game["seed"], str, "a text")
    for key in ("genesis", "head_hash"):
        _need(key, data.get(key), str, "a text")
    if "initial_state" not in data:
        raise VerifyError("the archive is malformed: initial_state is missing")
    for n, phase in enumerate(_need("phases", data.get("phases"), list, "a list")):
        where = f"phases[{n}]"
        _need(where, phase, dict, "an object")
        for key in ("seq", "turn"):
            _need(f"{where}.{key}", phase.get(key), int, "a whole number")
        for key in ("name", "digest", "state_hash", "prev_hash", "hash"):
            _need(f"{where}.{key}", phase.get(key), str, "a text")
        if phase.get("resolved_at") is not None:
            _need(f"{where}.resolved_at", phase["resolved_at"], str, "a text")
        _text_map(f"{where}.orders", phase.get("orders"))
        _text_map(f"{where}.receipts", phase.get("receipts", {}))
        for r, roll in enumerate(_need(f"{where}.rolls", phase.get("rolls"), list, "a list")):
            at = f"{where}.rolls[{r}]"
            if not isinstance(roll, list) or len(roll) != 4:
                raise VerifyError(f"the archive is malformed: {at} must be [counter, purpose, sides, value]")
            counter, purpose, sides, value = roll
            _need(f"{at} counter", counter, int, "a whole number")
            _need(f"{at} purpose", purpose, str, "a text")
            _need(f"{at} sides", sides, int, "a whole number")
            _need(f"{at} value", value, int, "a whole number")
            if sides < 2 or not 1 <= value <= sides:
                raise VerifyError(f"{where} (phase {phase['seq']}): die #{counter} is recorded as {value} on a d{sides}")


def verify_data(data: Any) -> VerifyReport:
    game = data.get("game") if isinstance(data, dict) else None
    report = VerifyReport(ok=False, game=str(game.get("id", "?"))[:80] if isinstance(game, dict) else "?")
    try:
        check_shape(data)
        assert isinstance(game, dict)
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
    except PbemError as exc:
        report.problem = str(exc)
    except Exception as exc:  # a crafted position or order can break an engine anywhere: still an answer
        log.debug("archive check stopped", exc_info=True)
        report.problem = f"the archive is malformed: {type(exc).__name__}: {str(exc)[:200]}"
    return report


def verify_path(path: Path) -> VerifyReport:
    try:
        return verify_data(load(path))
    except VerifyError as exc:
        return VerifyReport(ok=False, game=str(path), problem=str(exc))
