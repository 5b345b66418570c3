"""The atheris harnesses in ``fuzz/`` keep working without atheris: each one runs over the
mail corpus and a few hand-made inputs here, so a change that breaks one fails the suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted((ROOT / "tests" / "mail" / "corpus").glob("*.eml"))
EXTRA = [b"", b"\x00", b"<a" * 500, b"GAME k1\nSEAT a b\n\xe2\x80\xae" + b"x" * 2_000 + b"\nEND\n",
         b"hello\x00a b c", b'{"game": 1}', b"[]", b"{}", b"\xff\xfe"]
HARNESSES = ["read_mail", "parse_bounce", "parse_envelope", "html_to_text", "compose_roundtrip", "verify"]


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "fuzz"))
    try:
        spec = importlib.util.spec_from_file_location(f"fuzz_{name}", ROOT / "fuzz" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "fuzz"))


@pytest.mark.parametrize("name", HARNESSES)
def test_harness_runs_on_the_corpus(name: str) -> None:
    harness = _load(name)
    for data in [p.read_bytes() for p in CORPUS] + EXTRA:
        harness.test_one_input(data)


def test_the_script_runs_every_harness() -> None:
    script = (ROOT / "scripts" / "fuzz.sh").read_text(encoding="utf-8")
    assert all(name in script for name in HARNESSES)
    assert sorted(p.stem for p in (ROOT / "fuzz").glob("[!_]*.py")) == sorted(HARNESSES)
