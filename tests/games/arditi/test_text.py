"""Reports, help and templates, in English and Italian."""

import re
from pathlib import Path

from pbem.games.arditi import RULES
from pbem.games.arditi.state import SEATS

from .helpers import corteo, play, position, resolve_server

PACKAGE = Path(__file__).resolve().parents[3] / "pbem" / "games" / "arditi"


def test_every_message_key_exists_in_both_languages():
    keys = set()
    for path in PACKAGE.glob("*.py"):
        text = path.read_text()
        keys |= set(re.findall(r'msg\(\s*"([a-z0-9-]+)"\s*[,)]', text))
        keys |= set(re.findall(r'\bt\(\s*"([a-z0-9-]+)"\s*[,)]', text))
        keys |= set(re.findall(r'_text\(catalog, (?:lang|code), "([a-z0-9-]+)"', text))
    keys |= {f"seat-{s}" for s in SEATS} | {"seat-number", "seat-guard"}
    keys |= {f"{p}-{n}" for p in ("piece", "the") for n in ("pawn", "bishop", "knight", "rook", "queen", "king")}
    keys |= {f"outcome-{r}{d}" for r in ("bag", "twelve", "rounds") for d in ("", "-draw")}
    keys |= {"way-forward", "way-back", "report-refill-placed", "report-refill-waiting"}
    keys |= {f"map-{k}" for k in ("committee", "militant", "headless", "number", "police", "path", "clash",
                                  "arrest", "police-stage")}
    assert len(keys) > 120
    for lang in ("en", "it"):
        missing = sorted(k for k in keys if not RULES.catalog.has(k, lang))
        assert not missing, (lang, missing)


def test_report_of_a_move_with_a_recruit_and_a_clash():
    blue = corteo(33, 28, 23, 18, 13, committee=2)
    state = position({"red": corteo(26, 21, 22, 17), "blue": blue}, numbers=[80], roll=2)
    after = play(state, "ALONG 2 BACK")
    en = RULES.describe(RULES.view(after, "blue"), "en")
    assert "Red rolled 2 and used 2 points:" in en
    assert "the committee moves 2 squares back along its corteo: 26 → 22." in en
    assert "Street clash! Red's committee on 22 meets Blue's committee on 23" in en
    assert "Its committee goes to 8 and leads the longer part (militants: 2)" in en and "headless on 33, 28" in en
    assert "Now Blue is to move: the die rolled 1." in en
    it = RULES.describe(RULES.view(after, "blue"), "it")
    assert "Scontro di piazza! Il comitato di Rosso su 22 incontra il comitato di Blu su 23" in it
    assert "Ora muove Blu: il dado ha dato 1." in it


def test_report_of_a_march_with_a_jump_and_the_refill():
    state = position({"red": corteo(22, 17), "blue": corteo(60)}, numbers=[27], roll=3, bag=[5, 6])
    after = play(state, "PATH 32 37")
    en = RULES.describe(RULES.view(after, None), "en")
    assert "march: 22 → jump over 27 to 32 → 37." in en
    assert "Recruited 1: 27" in en
    assert "New indifferent from the bag: 5, on its square." in en
    it = RULES.describe(RULES.view(after, None), "it")
    assert "marcia: 22 → salto su 27 fino a 32 → 37." in it


def test_report_of_the_setup_and_of_the_police():
    state = RULES.new_game(["red", "blue"], {})
    assert "about to draw" in RULES.describe(RULES.view(state, None), "en")
    after, _ = resolve_server(state, [1])
    en = RULES.describe(RULES.view(after, "red"), "en")
    assert "Set-up: the party seats drawn are Red 1, Blue 2." in en
    police = position({"red": corteo(6, 11, 16, 21, 26, 31, 36, 41), "blue": corteo(60)}, stage="police",
                      bag=[21, 70])
    after, _ = resolve_server(police)
    it = RULES.describe(RULES.view(after, None), "it")
    assert "La celere alla fine della mano 3:" in it
    assert "entra in campo: il pedone." in it
    assert "il pedone pesca 21: lì viene arrestato un militante di Rosso" in it


def test_the_text_board_shows_every_piece():
    state = position({"red": corteo(22, 17, committee=1), "blue": corteo(60)}, numbers=[27],
                     guards=[("pawn", 70)], headless={"red": [[40]]})
    lines = RULES.describe(RULES.view(state, None), "en").splitlines()
    board = lines[lines.index(next(line for line in lines if line.strip().startswith("1   6"))):]
    ring2 = board[2]
    assert ring2.startswith("ring 2")
    cells = [ring2[8 + 4 * i: 12 + 4 * i] for i in range(18)]
    assert cells[3].strip() == "R" and cells[4].strip() == "r" and cells[5] == "[27]"
    ring5 = board[5]
    assert ring5[8 + 4 * 13: 12 + 4 * 13] == " !P "  # the pawn on 70: ray 14, ring 5
    assert ring5[8 + 4 * 11: 12 + 4 * 11] == "  B "  # blue's lone committee on 60
    assert ring5[8 + 4 * 7: 12 + 4 * 7] == "  r'"  # red's headless militant on 40



def test_help_in_both_languages():
    en, it = RULES.help("en"), RULES.help("it")
    assert "PATH 23 24 29 34" in en and "1 touches 46" in en and "STAY" in en
    assert "PERCORSO 23 24 29 34" in it and "la 1 confina con la 46" in it and "FERMO" in it
    assert "pawn, bishop, knight, rook, queen, king" in en
    assert "pedone, alfiere, cavallo, torre, regina, re" in it


def test_the_template_lists_the_possible_moves():
    state = position({"red": corteo(22, 17, 12), "blue": corteo(60)}, numbers=[37], roll=4)
    en = RULES.template(state, "red", "en")
    assert "The die rolled 4" in en
    assert "From 22 the first step can go to: 21, 23, 27." in en
    assert "#   PATH 27 32 JUMP 42" in en.splitlines()[5]  # the recruiting move first
    assert all(line.startswith("#") for line in en.splitlines())
    it = RULES.template(state, "red", "it")
    assert "Il dado ha dato 4" in it and "Da 22 il primo passo può andare su: 21, 23, 27." in it
    assert "Blue is to move" not in RULES.template(state, "blue", "en")
    assert "It is not your turn: Red is to move" in RULES.template(state, "blue", "en")


def test_orders_are_echoed_in_the_readers_language_when_the_words_do_not_say() -> None:
    """Issue 19.5: AUTO (the server's shorthand for a legal move, docs/games/arditi.md) is one word in both languages;
    its filed path echoes as PERCORSO to an Italian reader and as PATH to an English one, while
    words of one language keep that language whoever reads them."""
    from pbem.core.rules import echo_orders

    filed = "PATH 46 47"
    assert echo_orders(RULES, filed, "AUTO", "it") == "PERCORSO 46 47"
    assert echo_orders(RULES, filed, "auto", "en") == "PATH 46 47"
    assert echo_orders(RULES, filed, "PATH 46 47", "it") == "PATH 46 47"
    assert echo_orders(RULES, filed, "percorso 46 47", "en") == "PERCORSO 46 47"
