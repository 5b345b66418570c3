"""Columns kept encrypted at rest: the unrevealed dice seed, the reply-token key and the bytes
of every outgoing mail (a welcome carries a seat's secret).

The key never lives in the database: `pbem.service.atrest` reads it from the environment or
a file of mode 0600 and attaches it to the engine (`attach`); the column types below find it
on the engine's dialect, so every reader of ``game.seed_hex`` or ``outbox.raw`` gets plain
values and the database holds only Fernet tokens (AES-128-CBC with HMAC-SHA256, from the
`cryptography` package). Values written before encryption (no prefix) are read as they are.
"""

from __future__ import annotations

from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from sqlalchemy import LargeBinary, String, Text
from sqlalchemy.engine import Engine
from sqlalchemy.types import TypeDecorator

from pbem.errors import StorageError

#: What an encrypted value begins with; anything else is a value from before encryption.
TEXT_PREFIX = "sealed1:"
BYTES_PREFIX = b"sealed1:"
_ATTR = "pbem_keyring"
#: How many opened texts a key keeps (`Keyring.open_text`), and the longest token it keeps one of.
_TEXTS_MAX = 1024
_TEXT_TOKEN_MAX = 512


class Keyring:
    """One Fernet key: ``seal`` and ``open`` bytes."""

    def __init__(self, key: bytes, source: str) -> None:
        try:
            self._fernet = Fernet(key)
        except (ValueError, TypeError) as exc:
            raise StorageError(f"the key for data at rest ({source}) is not a Fernet key: {exc}") from None
        self.source = source
        self._texts: dict[str, str] = {}

    def seal(self, data: bytes) -> bytes:
        return self._fernet.encrypt(data)

    def open(self, token: bytes) -> bytes:
        try:
            return self._fernet.decrypt(token)
        except InvalidToken:
            raise StorageError(f"data at rest does not open with the key from {self.source}: "
                               "the key changed or the value was altered") from None

    def open_text(self, value: str) -> str:
        """A sealed text column's value (``TEXT_PREFIX`` and its token) opened. A short one is
        kept by its token: every order mail reads its game's unrevealed seed with the game
        (a decryption cost a third of that statement), and one token always opens to the same
        text (Fernet, no time limit); a value altered since is another token, opened and checked
        afresh. Kept in memory only, per key, bounded: what the process read anyway."""
        text = self._texts.get(value)
        if text is not None:
            return text
        text = self.open(value[len(TEXT_PREFIX):].encode("ascii")).decode("utf-8")
        if len(value) <= _TEXT_TOKEN_MAX:
            if len(self._texts) >= _TEXTS_MAX:
                self._texts.clear()  # dict calls are atomic: mails are handled in threads
            self._texts[value] = text
        return text


def attach(engine: Engine, keyring: Keyring) -> None:
    """Give the engine its key (once; an engine keeps the first)."""
    if getattr(engine.dialect, _ATTR, None) is None:
        setattr(engine.dialect, _ATTR, keyring)


def attached(engine: Engine) -> bool:
    return getattr(engine.dialect, _ATTR, None) is not None


def _keyring(dialect: Any) -> Keyring:
    keyring = getattr(dialect, _ATTR, None)
    if keyring is None:
        raise StorageError("encrypted data at rest used without its key (open the database through a Context)")
    assert isinstance(keyring, Keyring)
    return keyring


class _SealedStr(TypeDecorator[str]):
    """A text stored encrypted; an empty text stays empty (nothing to hide)."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> Any:
        if not value:
            return value
        return TEXT_PREFIX + _keyring(dialect).seal(str(value).encode("utf-8")).decode("ascii")

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        if not value or not value.startswith(TEXT_PREFIX):
            return value
        return _keyring(dialect).open_text(value)


class SealedText(_SealedStr):
    """In a TEXT column."""

    impl = Text
    cache_ok = True


class SealedString(_SealedStr):
    """In a VARCHAR column (the type ``game.seed_hex`` had before)."""

    impl = String  # type: ignore[assignment]
    cache_ok = True


class SealedBytes(TypeDecorator[bytes]):
    """A binary column stored encrypted."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> Any:
        if value is None:
            return None
        return BYTES_PREFIX + _keyring(dialect).seal(bytes(value))

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        if value is None:
            return None
        data = bytes(value)
        if not data.startswith(BYTES_PREFIX):
            return data
        return _keyring(dialect).open(data[len(BYTES_PREFIX):])


def is_sealed(value: str | bytes | None) -> bool:
    """Whether a value read with plain SQL is encrypted (or empty)."""
    if not value:
        return True
    return value.startswith(TEXT_PREFIX) if isinstance(value, str) else bytes(value).startswith(BYTES_PREFIX)
