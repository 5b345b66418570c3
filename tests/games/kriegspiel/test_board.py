"""The board and the unit table (rulebook, "REGOLAMENTO" and "UNITA'")."""

from collections import Counter

from pbem.games.kriegspiel.board import BOARD
from pbem.games.kriegspiel.units import ARMY, NUMBERS, UNITS


def test_board_is_20_by_25_split_in_two_territories():
    # Rulebook, "REGOLAMENTO": 500 squares, 20x25, two territories of 10x25.
    assert (BOARD.rows, BOARD.cols, BOARD.size) == (20, 25, 500)
    assert len(BOARD.squares_of("north")) == len(BOARD.squares_of("south")) == 250
    assert BOARD.territory(BOARD.index("J25")) == "north"
    assert BOARD.territory(BOARD.index("K1")) == "south"


def test_each_territory_has_its_terrain():
    # Rulebook, "REGOLAMENTO": each territory has one pass, two arsenals, three forts and one
    # mountain range of nine squares.
    for side in ("north", "south"):
        kinds = Counter(kind for sq, kind in BOARD.terrain.items() if BOARD.territory(sq) == side)
        assert kinds == {"mountain": 9, "fort": 3, "pass": 1}
        assert sum(1 for _, s in BOARD.arsenals if s == side) == 2
        assert all(BOARD.territory(sq) == s for sq, s in BOARD.arsenals)


def test_known_terrain_squares():
    # reconstruction.md: the published layout.
    names = {BOARD.name(sq): kind for sq, kind in BOARD.terrain.items()}
    assert names["F10"] == names["O16"] == "pass"
    assert {n for n, k in names.items() if k == "fort"} == {"B8", "I13", "H21", "M3", "L15", "O23"}
    assert {BOARD.name(sq) for sq, _ in BOARD.arsenals} == {"B15", "D8", "T3", "T23"}


def test_square_names():
    assert BOARD.parse("g6") == BOARD.index("G6") == 6 * 25 + 5
    assert BOARD.parse("A1") == 0 and BOARD.parse("T25") == 499
    for bad in ("U1", "A0", "A26", "6G", "", "GG", "G"):
        assert BOARD.parse(bad) is None


def test_unit_table():
    # Rulebook, "UNITA'", "Arsenali & Staffette", "Unita' da combattimento".
    assert ARMY == {"infantry": 9, "cavalry": 4, "artillery": 1, "horse_artillery": 1,
                    "relay": 1, "horse_relay": 1}
    table = {k: (s.attack, s.defence, s.range, s.move) for k, s in UNITS.items()}
    assert table == {"infantry": (4, 6, 2, 1), "cavalry": (4, 5, 2, 2), "artillery": (5, 8, 3, 1),
                     "horse_artillery": (5, 8, 3, 2), "relay": (0, 1, 2, 1),
                     "horse_relay": (0, 1, 2, 2)}
    assert UNITS["cavalry"].charge == 7
    assert (NUMBERS.max_moves, NUMBERS.fort_bonus, NUMBERS.pass_bonus) == (5, 4, 2)
    assert [k for k, s in UNITS.items() if s.combat] == ["infantry", "cavalry", "artillery",
                                                          "horse_artillery"]
