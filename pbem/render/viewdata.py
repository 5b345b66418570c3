"""Reading a view (plain JSON data) defensively in the renderers: a map must still be drawn from
a view with a missing or odd field, so every read has a fallback."""

from __future__ import annotations

from typing import Any


def as_int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def as_dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, (list, tuple)) else []


def as_strs(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, (list, tuple)) else []
