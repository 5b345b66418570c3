"""Block Mania's title bar and side panel: whose turn it is, the players' table, the hand, the
final ranking and the turn's notes in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.i18n import Catalog
from pbem.games.blockmania.mapstyle import (
    PAD,
    PANEL_W,
    PANEL_X,
    SEAT_INK,
    SEAT_SHAPES,
    SHOT,
    TITLE_H,
    WIDTH,
    _maybe,
    _seat_name,
    _shape,
    _text,
    seat_colours,
)
from pbem.games.blockmania.report import note_text
from pbem.render import svg, theme
from pbem.render.svg import Path
from pbem.render.viewdata import as_dicts as _dicts, as_int as _int, as_strs as _strs

def _stage(catalog: Catalog, lang: str, stage: str) -> str:
    return _maybe(catalog, lang, f"map-stage-{stage}", stage)


def _title(view: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    turn = _int(view.get("turn"))
    active = str(view.get("active") or "")
    parts = [_text(catalog, lang, "map-turn", turn=turn) if turn else _text(catalog, lang, "map-setup")]
    if active:
        parts.append(_text(catalog, lang, "map-to-play", seat=_seat_name(catalog, lang, active)))
        parts.append(_text(catalog, lang, "map-cp", points=_int(view.get("command_points"))))
    stage = str(view.get("stage") or "")
    if stage:
        parts.append(_stage(catalog, lang, stage))
    viewer = view.get("viewer")
    who = (_text(catalog, lang, "map-for", seat=_seat_name(catalog, lang, str(viewer))) if isinstance(viewer, str)
           else _text(catalog, lang, "map-for-spectator"))
    title_w = svg.text_width(_text(catalog, lang, "map-title"), theme.TITLE_SIZE + 2, bold=True)
    out = [svg.text(PAD, 30, _text(catalog, lang, "map-title"), font_size=theme.TITLE_SIZE + 2, font_weight="bold",
                    fill=theme.INK),
           svg.text(PAD + title_w + 34, 30, " · ".join(parts), font_size=17, fill=theme.INK),
           svg.text(WIDTH - PAD, 30, who, font_size=theme.SUBTITLE_SIZE, fill=theme.INK_SOFT, text_anchor="end")]
    if active:
        c = seat_colours(active)
        p = Path()
        _shape(p, SEAT_SHAPES.get(active, "circle"), PAD + title_w + 20, 24, 7)
        out.append(svg.path(p, fill=c.main, stroke=c.dark, stroke_width=1.2))
    if view.get("final"):
        out.append(svg.text(PAD, 54, _text(catalog, lang, "map-final"), font_size=14, font_weight="bold",
                            fill=SHOT))
    return "".join(out)


class _Panel:
    """The panel's text, top to bottom."""

    def __init__(self, x: float, y: float, bottom: float) -> None:
        self.x = x
        self.y = y
        self.bottom = bottom
        self.parts: list[str] = []

    def heading(self, label: str) -> None:
        self.y += 22
        self.parts.append(svg.text(self.x, self.y, label, font_size=14, font_weight="bold", fill=theme.INK))
        self.y += 6

    def line(self, label: str, size: float = 11.5, ink: str = theme.INK, indent: float = 0, bold: bool = False) -> bool:
        if self.y + size + 4 > self.bottom:
            return False
        self.y += size + 4
        self.parts.append(svg.text(self.x + indent, self.y, label, font_size=size, fill=ink,
                                   font_weight="bold" if bold else None))
        return True


def _players(view: Mapping[str, Any], panel: _Panel, catalog: Catalog, lang: str) -> None:
    panel.heading(_text(catalog, lang, "map-players"))
    cols = ("cards", "pile", "map", "dead", "justice", "defeat")
    col_x = [panel.x + 178 + i * 40 for i in range(len(cols))]
    heads = [(cx, panel.y + 10, _text(catalog, lang, f"map-col-{c}")) for cx, c in zip(col_x, cols)]
    panel.parts.append(svg.text_run(heads, font_size=8, fill=theme.INK_SOFT))
    panel.y += 14
    active = view.get("active")
    rows: list[tuple[float, float, str]] = []
    bold_rows: list[tuple[float, float, str]] = []
    for seat in _dicts(view.get("seats")):
        name = str(seat.get("name") or "")
        c = seat_colours(name)
        top = panel.y + 4
        if name == active:
            panel.parts.append(svg.rect(panel.x - 4, top - 1, PANEL_W - 12, 38, fill="#ffffff", stroke=c.main,
                                        stroke_width=1.6, rx=4))
        p = Path().round_rect(panel.x, top + 4, 26, 26, 4)
        panel.parts.append(svg.path(p, fill=c.main, stroke=c.dark, stroke_width=1.2))
        sym = Path()
        _shape(sym, SEAT_SHAPES.get(name, "circle"), panel.x + 13, top + 17, 6)
        panel.parts.append(svg.path(sym, fill=SEAT_INK.get(name, "#ffffff")))
        label = _seat_name(catalog, lang, name)
        if name == active:
            label += " ▶ " + _text(catalog, lang, "map-cp", points=_int(view.get("command_points")))
        bold_rows.append((panel.x + 34, top + 15, label))
        block = str(seat.get("block_name") or seat.get("block") or "")
        if seat.get("fallen"):
            # on the block's line, left of the counts: the seat's line with its Command Points has no room
            fallen = _text(catalog, lang, "map-fallen")
            room = col_x[0] - 12 - (panel.x + 34)
            block = f"{block} - {fallen}" if svg.text_width(f"{block} - {fallen}", 10) <= room else fallen
        rows.append((panel.x + 34, top + 30, block))
        for cx, key in zip(col_x, ("hand_size", "pile_size", "on_map", "dead", "justice", "defeat")):
            (bold_rows if key == "defeat" else rows).append((cx, top + 22, str(_int(seat.get(key)))))
        panel.y += 42
    panel.parts.append(svg.text_run([r for r in rows if r[0] >= panel.x + 150], font_size=12, fill=theme.INK))
    panel.parts.append(svg.text_run([r for r in rows if r[0] < panel.x + 150], font_size=10, anchor="start",
                                    fill=theme.INK_SOFT))
    panel.parts.append(svg.text_run([r for r in bold_rows if r[0] < panel.x + 150], font_size=12.5, bold=True,
                                    anchor="start", fill=theme.INK))
    panel.parts.append(svg.text_run([r for r in bold_rows if r[0] >= panel.x + 150], font_size=12.5, bold=True,
                                    fill=SHOT))
    panel.line(_text(catalog, lang, "map-deck", deck=_int(view.get("deck")), set_aside=_int(view.get("set_aside")),
                     discards=_int(view.get("discards"))), size=11, ink=theme.INK_SOFT)


def _hand(view: Mapping[str, Any], panel: _Panel, catalog: Catalog, lang: str) -> None:
    viewer = view.get("viewer")
    seat = next((s for s in _dicts(view.get("seats")) if s.get("name") == viewer and "hand" in s), None)
    if seat is None:
        return
    panel.heading(_text(catalog, lang, "map-hand"))
    cards = _dicts(seat.get("hand"))
    if not cards:
        panel.line(_text(catalog, lang, "map-hand-empty"), ink=theme.INK_SOFT)
    for card in cards:
        panel.line(_text(catalog, lang, "map-hand-card", number=_int(card.get("number")),
                         mania=card.get("mania") or "?", justice=card.get("justice") or "?"))


def _result(view: Mapping[str, Any], panel: _Panel, catalog: Catalog, lang: str) -> None:
    result = view.get("result")
    if not isinstance(result, dict):
        return
    panel.heading(_text(catalog, lang, "map-result"))
    defeat = result.get("defeat") if isinstance(result.get("defeat"), dict) else {}
    assert isinstance(defeat, dict)
    for rank, seat in enumerate(_strs(result.get("ranking")), 1):
        panel.line(_text(catalog, lang, "map-result-line", rank=rank, seat=_seat_name(catalog, lang, seat),
                         points=_int(defeat.get(seat))), bold=rank == 1)


def _turn_notes(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The notes of the current turn (every phase of it, in order)."""
    turn = _int(view.get("turn"))
    out: list[dict[str, Any]] = []
    for entry in _dicts(view.get("log")):
        if _int(entry.get("turn")) == turn:
            out.extend(_dicts(entry.get("notes")))
    return out


def _note_text(note: Mapping[str, Any], catalog: Catalog, lang: str) -> str:
    args = note.get("args") if isinstance(note.get("args"), dict) else {}
    assert isinstance(args, dict)
    # as the report words them: the values that are words (a result, a cause, a Hazard's attacker) in ``lang``
    return note_text(catalog, lang, str(note.get("key") or "?"), {str(k): v for k, v in args.items()})


def _notes(view: Mapping[str, Any], panel: _Panel, catalog: Catalog, lang: str) -> None:
    panel.heading(_text(catalog, lang, "map-notes"))
    notes = _turn_notes(view)
    if not notes:
        panel.line(_text(catalog, lang, "map-notes-none"), ink=theme.INK_SOFT)
        return
    lines: list[str] = []
    for note in notes:
        wrapped = svg.wrap(_note_text(note, catalog, lang), 11, PANEL_W - 26)
        lines.extend(["• " + wrapped[0], *["  " + w for w in wrapped[1:]]] if wrapped else [])
    room = int((panel.bottom - panel.y) // 15)
    if len(lines) > room:
        shown = lines[: max(0, room - 1)]
        hidden = sum(1 for ln in lines[len(shown):] if ln.startswith("•"))
        lines = shown + [_text(catalog, lang, "map-notes-more", count=max(1, hidden))]
    for ln in lines:
        panel.line(ln, size=11)
