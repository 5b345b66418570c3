"""The round board: numbering, orthogonal adjacency and the "sphere" wrap (rulebook, first and
"Il tabellone dev'essere pensato come uno spazio sferico" paragraphs)."""

import tomllib
from importlib import resources

import pytest

from pbem.games.arditi.board import BOARD, Board

# Square -> its four neighbours, worked out by hand from the rulebook's numbering:
# "si parte da quella contrassegnata con un pallino bianco procedendo dall'esterno verso
# l'interno, per proseguire nel raggio successivo in senso antiorario".
NEIGHBOURS = {
    1: {2, 6, 86, 46},     # outer ring: out of the board onto ray 10 ("la n.1 confina con la n.46")
    5: {4, 10, 90, 50},    # inner ring: through the centre onto ray 10 ("la casa n.5 ... con la n.50")
    3: {2, 4, 8, 88},      # the middle ring wraps around the board (ray 1 next to ray 18)
    23: {22, 24, 18, 28},  # an ordinary square
    45: {44, 40, 50, 90},
    46: {47, 41, 51, 1},
    50: {49, 45, 55, 5},
    86: {87, 81, 1, 41},
    88: {87, 89, 83, 3},
    90: {89, 85, 5, 45},
}


@pytest.mark.parametrize("square,expected", sorted(NEIGHBOURS.items()))
def test_neighbours_from_the_table(square, expected):
    assert set(BOARD.neighbours(square)) == expected


def test_the_rulebook_examples_touch():
    """"la casa n.5 s'intende confinante con la n.50, in modo simile la n.1 confina con la n.46"."""
    assert BOARD.adjacent(5, 50) and BOARD.adjacent(50, 5)
    assert BOARD.adjacent(1, 46) and BOARD.adjacent(46, 1)
    data = tomllib.loads(resources.files("pbem.games.arditi.data").joinpath("board.toml").read_text("utf-8"))
    assert [5, 50] in data["touching"] and [1, 46] in data["touching"]


def test_numbering_puts_the_multiples_of_5_on_the_inner_ring():
    """"in modo tale che tutti i multipli di 5 si trovino allineati sopra l'anello interno"."""
    assert BOARD.size == 90
    assert all(BOARD.ring(n) == 5 for n in range(5, 91, 5))
    assert (BOARD.ray(1), BOARD.ring(1)) == (1, 1)
    assert (BOARD.ray(23), BOARD.ring(23)) == (5, 3)
    assert (BOARD.ray(90), BOARD.ring(90)) == (18, 5)
    assert all(BOARD.opposite(n) in (n + 45, n - 45) for n in range(1, 91))


def test_every_square_has_four_neighbours_and_adjacency_is_symmetric():
    for n in range(1, 91):
        nb = BOARD.neighbours(n)
        assert len(nb) == 4 and n not in nb
        assert all(BOARD.adjacent(m, n) for m in nb)


def test_no_diagonals_and_rays_do_not_wrap():
    """"non può spostarsi in diagonale ma soltanto sullo stesso anello oppure sullo stesso raggio"."""
    assert not BOARD.adjacent(23, 29)  # diagonal
    assert not BOARD.adjacent(23, 17)
    assert not BOARD.adjacent(5, 6)  # the inner end of ray 1 does not lead to the outer end of ray 2
    assert not BOARD.adjacent(1, 5)  # a ray is not a loop


def test_straight_on_follows_the_line_across_the_edge():
    assert BOARD.beyond(2, 1) == 46  # outward off ray 1, back in on ray 10
    assert BOARD.beyond(1, 46) == 47  # ... and on inward
    assert BOARD.beyond(4, 5) == 50  # inward through the centre
    assert BOARD.beyond(18, 23) == 28  # along a ring
    assert BOARD.beyond(23, 29) is None  # not neighbours


def test_left_and_right_keep_the_heading_across_the_edge():
    assert BOARD.turn(2, 1, "left") == 6  # walking outward, left is counter-clockwise
    assert BOARD.turn(2, 1, "right") == 86
    assert BOARD.turn(1, 46, "left") == 41  # after the edge, walking inward on ray 10: same heading on the map
    assert BOARD.turn(18, 23, "left") == 24  # walking counter-clockwise, left is inward


def test_the_geometry_is_data():
    small = Board(8, 3)
    assert small.size == 24
    assert small.adjacent(1, 13) and small.adjacent(3, 15)  # opposite rays: 4 apart
    assert len(small.neighbours(2)) == 4
