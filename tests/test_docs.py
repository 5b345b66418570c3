"""The docs speak to players and game masters (issue 19.8): a game's page cites no file a reader
of the repository cannot open (the rulebook scans and design notes kept outside it) and leaves
no notes to ourselves; the README says how to stop the server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "docs" / "games").glob("*.md"))
#: A file named in code quotes: `data/demo.toml`, `pbem/games/arditi/board.py`, `city.toml`.
CITED = re.compile(r"`([\w./-]+\.(?:toml|py|md|pdf|txt|json|svg|png|csv))`")
#: Words of a working note or of a path outside the repository.
NOTES = re.compile(r"\b(?:TODO|FIXME|XXX|Still to do|to ourselves|seeds?/|shared/|/work/)|\.pdf\b")


def _repository_files() -> set[str]:
    skip = {".git", ".venv", "node_modules", "__pycache__"}
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if not skip & set(p.relative_to(ROOT).parts)}


FILES = _repository_files()


def test_the_pages_are_there() -> None:
    assert {p.stem for p in GAMES} >= {"arditi", "blockmania", "corteo", "kriegspiel", "seattle"}


@pytest.mark.parametrize("page", GAMES, ids=lambda p: p.stem)
def test_a_game_page_cites_only_files_of_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = []
    for cited in CITED.findall(text):
        here = (cited in FILES or f"pbem/games/{page.stem}/{cited}" in FILES
                or f"pbem/games/{page.stem}/data/{cited}" in FILES or any(f.endswith("/" + cited) for f in FILES))
        if not here:
            missing.append(cited)
    assert missing == []


@pytest.mark.parametrize("page", GAMES, ids=lambda p: p.stem)
def test_a_game_page_has_no_working_notes(page: Path) -> None:
    found = [(n, line) for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1) if NOTES.search(line)]
    assert found == []


def test_the_readme_says_how_to_stop_the_server() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("pbem serve")
    near = readme[start:start + 600]
    assert "Ctrl-C" in near and "SIGTERM" in near and "pbem stopped" in near
