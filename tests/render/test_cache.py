"""Static map parts are built once per process."""

from __future__ import annotations

from pbem.render import cache


def test_static_part_builds_once_and_is_registered() -> None:
    calls: list[tuple[int, ...]] = []

    @cache.static_part(maxsize=4)
    def board(terrain: tuple[int, ...]) -> str:
        calls.append(terrain)
        return f"<g>{len(terrain)}</g>"

    assert board((1, 2)) == board((1, 2)) == "<g>2</g>"
    assert board((3,)) == "<g>1</g>"
    assert calls == [(1, 2), (3,)]
    name = next(n for n in cache.stats() if n.endswith("<locals>.board"))
    info = cache.stats()[name]
    assert (info.hits, info.misses) == (1, 2)
    cache.clear()
    board((1, 2))
    assert calls[-1] == (1, 2) and len(calls) == 3
