"""The service's own texts (mails, replies, notices), in the players' languages."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

from pbem.core.i18n import Catalog, Message


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    base = Catalog.from_package("pbem.service", "messages.toml")
    # one file per concern beside it (messages_club.toml, …), merged in name order
    extra = sorted(p.name for p in resources.files("pbem.service").iterdir()
                   if p.name.startswith("messages_") and p.name.endswith(".toml"))
    for name in extra:
        base = base.merged(Catalog.from_package("pbem.service", name))
    try:
        base = base.merged(Catalog.from_package("pbem.mail", "messages.toml"))
    except FileNotFoundError:
        pass
    return base


def t(key: str, lang: str, **args: Any) -> str:
    return catalog().text(Message(key, args), lang)


def text_of(message: Message | str | None, lang: str, game_catalog: Catalog | None = None) -> str:
    """A message from an engine or the mail layer, in ``lang``."""
    if message is None:
        return ""
    if isinstance(message, str):
        return message
    if game_catalog is not None and game_catalog.has(message.key, "en"):
        return game_catalog.text(message, lang)
    return catalog().text(message, lang)
