"""One tree of errors for the whole package.

Player input never raises (parsers return diagnostics); these are for the
operator, the CLI and the service layer.
"""

from __future__ import annotations


class PbemError(Exception):
    """Root of every error pbem raises on purpose."""


class ConfigError(PbemError):
    """The configuration file is missing, malformed or has unknown keys."""


class UserError(PbemError):
    """A CLI or game-master request that cannot be carried out (exit code 1)."""


class NotFoundError(UserError):
    """A game, seat or archive that does not exist."""


class GameStateError(UserError):
    """The request does not fit the game's current state (finished, paused, ...)."""


class RulesError(PbemError):
    """A rules engine broke one of its own invariants: a bug, never player input."""


class UnknownGameError(UserError):
    """No rules engine is registered under that kind."""


class CodecError(PbemError):
    """Stored state or orders could not be decoded."""


class StorageError(PbemError):
    """The database refused or lost something."""


class MailError(PbemError):
    """A mail server could not be reached or refused a command."""


class MailTransientError(MailError):
    """A temporary failure (4xx, timeout, dropped connection): try again later."""


class MailPermanentError(MailError):
    """A permanent failure (5xx) for a recipient: do not retry."""


class MailServerError(MailError):
    """The mail server could not be used at all (unreachable, TLS not trusted, login or
    sender refused): the server's state, never one mail's fate. ``fix`` says what an
    administrator should check."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


class MailServerDownError(MailServerError, MailTransientError):
    """The server does not answer (refused connection, DNS, timeout): it may come back."""


class MailSetupError(MailServerError, MailPermanentError):
    """The server answers but refuses us (certificate, login, sender): only a change of
    settings (ours or the server's) helps."""


class RenderError(PbemError):
    """An SVG could not be rasterised."""


class VerifyError(PbemError):
    """An archive does not verify; the message names the first mismatch."""


class MailMaybeDeliveredError(MailTransientError):
    """The server stopped answering after the message data was sent: the mail may have
    been delivered. Retrying is right; a duplicate (same Message-ID) is possible."""
