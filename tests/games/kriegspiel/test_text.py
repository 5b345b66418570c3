"""Reports, help and templates, in English and Italian."""

import re
from pathlib import Path

import pytest

from pbem.games.kriegspiel import RULES

from .helpers import deploy, play, position
from .test_combat import EXAMPLE_NORTH, EXAMPLE_SOUTH
from .test_retreat import pushed

PACKAGE = Path(__file__).resolve().parents[3] / "pbem" / "games" / "kriegspiel"


def test_every_message_key_exists_in_both_languages():
    keys = set()
    for path in PACKAGE.glob("*.py"):
        keys |= set(re.findall(r'msg\(\s*"([a-z0-9-]+)"\s*[,)]', path.read_text()))
        keys |= set(re.findall(r'\bt\(\s*"([a-z0-9-]+)"\s*[,)]', path.read_text()))
    keys |= {f"kind-{k}" for k in ("infantry", "cavalry", "artillery", "horse_artillery", "relay",
                                   "horse_relay")}
    keys |= {f"side-{s}" for s in ("north", "south")}
    keys |= {f"err-move-{r}" for r in ("too-far", "not-a-path", "mountain", "occupied", "blocked")}
    keys |= {f"result-{r}" for r in ("none", "retreat", "captured")}
    keys |= {f"outcome-{r}-{s}" for r in ("arsenals", "annihilation", "communications",
                                          "resignation") for s in ("north", "south")}
    keys |= {"outcome-agreement-draw"}
    for lang in ("en", "it"):
        missing = sorted(k for k in keys if not RULES.catalog.has(k, lang))
        assert not missing, (lang, missing)


def test_report_shows_the_attack_term_by_term():
    state = play(position(north=EXAMPLE_NORTH, south=EXAMPLE_SOUTH), "ATTACK L5")
    en = RULES.describe(RULES.view(state, "south"), "en")
    assert ("Attack on L5 (infantry): 7 (L4 cavalry, charge) + 7 (L3 cavalry, charge) + "
            "7 (L2 cavalry, charge) + 5 (L8 artillery) + 4 (M4 infantry) + 4 (K4 infantry) = 34 "
            "against defence 6 (L5 infantry) + 6 (K5 infantry) + 8 (N5 artillery) + "
            "8 (O5 horse artillery) = 28 → captured.") in en
    assert "Captured: South infantry on L5." in en
    assert "Turn 6: South to move." in en
    it = RULES.describe(RULES.view(state, "south"), "it")
    assert "Attacco su L5 (fanteria): 7 (L4 cavalleria, carica)" in it
    assert "= 28 → catturata." in it and "Turno 6: muove il Sud." in it


def test_report_terrain_bonus_retreat_and_cut_off():
    state = pushed()
    en = RULES.describe(RULES.view(state, "north"), "en")
    assert "→ forced retreat." in en
    assert "South's infantry on O3 is in forced retreat" in en
    it = RULES.describe(RULES.view(state, "north"), "it")
    assert "ritirata forzata" in it
    cut = position(north="INFANTRY M1 J8", south="INFANTRY L15 T20\nRELAY T21")
    en = RULES.describe(RULES.view(cut, None), "en")
    assert "Cut off from communications (North): M1 infantry." in en


def test_report_deployment_and_first_player():
    new = RULES.new_game(("north", "south"), {})
    assert "Sealed deployment" in RULES.describe(RULES.view(new, "north"), "en")
    assert "Schieramento segreto" in RULES.describe(RULES.view(new, None), "it")
    state = deploy(RULES.default_orders(new, "north").canonical(),
                   RULES.default_orders(new, "south").canonical(), roll=2)
    assert "The die rolled 2: South moves first." in RULES.describe(RULES.view(state, None), "en")
    assert "muove per primo il Sud" in RULES.describe(RULES.view(state, None), "it")


def test_report_outcome():
    over = play(position(north="INFANTRY J8", south="INFANTRY T20\nRELAY T21"), "RESIGN")
    assert "South wins: North resigned." in RULES.describe(RULES.view(over, None), "en")
    assert "Vince il Sud: il Nord ha abbandonato." in RULES.describe(RULES.view(over, None), "it")


def test_ascii_board():
    new = RULES.new_game(("north", "south"), {})
    state = deploy(RULES.default_orders(new, "north").canonical(),
                   RULES.default_orders(new, "south").canonical(), roll=1)
    text = RULES.describe(RULES.view(state, None), "en")
    rows = [line for line in text.splitlines() if re.match(r"^ [A-T]  ", line)]
    assert len(rows) == 20 and all(len(r) == len(rows[0]) for r in rows)
    assert rows[5].startswith(" F ") and "(I)" in rows[5]  # North infantry on the pass F10
    assert "[i]" in rows[11]  # South infantry in the fort L15


@pytest.mark.parametrize("lang", ["en", "it"])
def test_help(lang):
    text = RULES.help(lang)
    assert len(text) > 2000
    for word in ("MOVE" if lang == "en" else "MUOVI", "HORSE-ARTILLERY", "STAFFETTA-A-CAVALLO"):
        assert word in text
    assert "{" not in text and "}" not in text


def test_help_languages_differ():
    assert "Vittoria" in RULES.help("it") or "VITTORIA" in RULES.help("it").upper()
    assert RULES.help("en") != RULES.help("it")


def test_template_lists_moves_attacks_and_retreat():
    state = play(pushed(), "MOVE O3 P3")  # North to move again
    text = RULES.template(state, "north", "en")
    assert "Turn 7, North to move" in text
    assert re.search(r"O4\s+cavalry: ", text)
    assert "ATTACK P3  (infantry): attack 7 against defence 6, forced retreat" in text
    assert "ATTACK Q6  (infantry): attack 4 against defence 6, no effect" in text
    assert all(line.startswith("#") for line in text.splitlines())
    south = RULES.template(pushed(), "south", "it")
    assert "Ritirata forzata: l'unità di fanteria in O3 deve muovere per prima" in south
    assert "Non è il tuo turno" in RULES.template(pushed(), "north", "it")


def test_template_at_deployment_and_game_over():
    new = RULES.new_game(("north", "south"), {})
    text = RULES.template(new, "south", "en")
    assert "rows K to T" in text and "# INFANTRY K15" in text
    over = play(position(north="INFANTRY J8", south="INFANTRY T20\nRELAY T21"), "RESIGN")
    assert "over" in RULES.template(over, "north", "en")
