"""The board drawn as SVG on the server, from a ``rules`` position or from what the camera reads.

Drawing works in *display numbering*: player 0's own numbering, which is also the physical
P1..P24 of INTERFACES.md §3 (P1 bottom right, counter-clockwise).  Player 0 (light) sits at the
bottom, player 1 (dark) at the top.  Point labels show the numbering of the side on roll, so they
match the move list and the alert.  No inline styles (the page's CSP forbids them): only classes
and presentation attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html import escape

from rules.position import Position, opponent_point
from web_ui.view import CameraReading, PointMark, Snapshot

PW = 60  # point width
R = 27  # checker radius
MARGIN = 18
POINT_LEN = 5 * 2 * R
MIDDLE = 96
HALF_W = 6 * PW
BAR_W = 64
TRAY_W = 78
WIDTH = MARGIN + HALF_W + BAR_W + HALF_W + MARGIN + TRAY_W + MARGIN
HEIGHT = MARGIN + POINT_LEN + MIDDLE + POINT_LEN + MARGIN
LEFT_X = MARGIN
BAR_X = LEFT_X + HALF_W
RIGHT_X = BAR_X + BAR_W
TRAY_X = RIGHT_X + HALF_W + MARGIN
TOP_Y = MARGIN
BOTTOM_Y = HEIGHT - MARGIN
MID_Y = HEIGHT / 2

Translate = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Checkers in display numbering: ``bottom[d-1]``/``top[d-1]`` for physical point d, index 24 = bar."""

    variant: str
    bottom: tuple[int, ...]
    top: tuple[int, ...]
    on_roll: int | None = 0  # None: nobody (a camera reading)
    dice: tuple[int, ...] = ()
    cube_value: int = 1
    cube_owner: int | None = None
    pips: tuple[int, int] | None = None
    bottom_off: int = 0
    top_off: int = 0
    turn_marker: bool = True  # False once the game is over: nobody is to play


def to_display(variant: str, on_roll: int, mover_point: int) -> int:
    """Display point for a point numbered by the side on roll (1..24)."""
    return mover_point if on_roll == 0 else opponent_point(variant, mover_point)


def layout_from_position(
    position: Position,
    on_roll: int,
    *,
    dice: tuple[int, ...] = (),
    cube_value: int = 1,
    cube_owner: int | None = None,
    show_pips: bool = True,
) -> BoardLayout:
    """Place a position seen from the side on roll (player ``on_roll``) on the display board."""
    zero, one = (position.mover, position.opponent) if on_roll == 0 else (position.opponent, position.mover)
    top = [0] * 25
    for d in range(1, 25):
        top[d - 1] = one[opponent_point(position.variant, d) - 1]
    top[24] = one[24]
    pips = None
    if show_pips:
        mine, theirs = position.pips(True), position.pips(False)
        pips = (mine, theirs) if on_roll == 0 else (theirs, mine)
    return BoardLayout(
        position.variant,
        tuple(zero),
        tuple(top),
        on_roll,
        dice,
        cube_value,
        cube_owner,
        pips,
        15 - sum(zero),
        15 - sum(one),
    )


def position_from_layout(variant: str, bottom: Sequence[int], top: Sequence[int], on_roll: int) -> Position:
    """The inverse of :func:`layout_from_position`: a Position seen from player ``on_roll``.

    Raises ``rules.errors.InvalidPosition`` for an impossible board.
    """
    one = [0] * 25
    for d in range(1, 25):
        one[opponent_point(variant, d) - 1] = int(top[d - 1])
    one[24] = int(top[24])
    zero = tuple(int(c) for c in bottom)
    position = Position(zero, tuple(one), variant) if on_roll == 0 else Position(tuple(one), zero, variant)
    problem = position.problem()
    if problem:
        from rules.errors import InvalidPosition

        raise InvalidPosition(problem)
    return position


def layout_from_snapshot(snap: Snapshot) -> BoardLayout:
    over = snap.phase == "game_over"
    layout = layout_from_position(
        snap.position,
        snap.on_roll,
        dice=() if over else snap.dice,  # the last roll is no longer on the board
        cube_value=snap.cube_value,
        cube_owner=snap.cube_owner,
        show_pips=not snap.tournament,
    )
    return replace(layout, turn_marker=not over)


def layout_from_reading(reading: CameraReading, variant: str = "backgammon") -> BoardLayout:
    bottom = [light for light, _ in reading.points] + [reading.bar[0]]
    top = [dark for _, dark in reading.points] + [reading.bar[1]]
    return BoardLayout(variant, tuple(bottom), tuple(top), None, reading.dice, 1, None, None,
                       max(0, 15 - sum(bottom)), max(0, 15 - sum(top)))


def _point_geometry(d: int) -> tuple[float, float, int]:
    """(left x, base y, direction) of display point d; direction +1 grows down from the top edge."""
    if d <= 6:
        return RIGHT_X + (6 - d) * PW, BOTTOM_Y, -1
    if d <= 12:
        return LEFT_X + (12 - d) * PW, BOTTOM_Y, -1
    if d <= 18:
        return LEFT_X + (d - 13) * PW, TOP_Y, 1
    return RIGHT_X + (d - 19) * PW, TOP_Y, 1


def _stack(out: list[str], cx: float, base: float, direction: int, count: int, cls: str, limit: int = 5) -> None:
    shown = min(count, limit)
    for i in range(shown):
        cy = base + direction * (R + i * 2 * R)
        out.append(f'<circle class="ck {cls}" cx="{cx:.0f}" cy="{cy:.0f}" r="{R - 1}"/>')
    if count > limit:
        cy = base + direction * (R + (shown - 1) * 2 * R)
        out.append(f'<text class="ck-count {cls}-count" x="{cx:.0f}" y="{cy + 8:.0f}">{count}</text>')


DIE = 34  # a die fits between the two rows of point labels


def _die(out: list[str], x: float, y: float, value: int, cls: str) -> None:
    size = DIE
    out.append(f'<g class="die {cls}" data-value="{value}">')
    out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{size}" height="{size}" rx="8"/>')
    spots = {
        1: [(0.5, 0.5)],
        2: [(0.27, 0.27), (0.73, 0.73)],
        3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
        4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
        5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
        6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
    }.get(value, [])
    for fx, fy in spots:
        out.append(f'<circle class="pip" cx="{x + fx * size:.1f}" cy="{y + fy * size:.1f}" r="3.6"/>')
    out.append("</g>")


def render(
    layout: BoardLayout,
    t: Translate = lambda key: key,
    marks: Sequence[PointMark] = (),
    mark_side: int | None = None,
    editable: bool = False,
    element_id: str = "",
    ghost: BoardLayout | None = None,
    view: tuple[float, float, float, float] | None = None,
    extra_class: str = "",
) -> str:
    """The board as an ``<svg>`` element.

    ``marks`` are points in the numbering of ``mark_side`` (default: the side on roll) to
    highlight; 25 means that side's bar, 0 its borne-off tray.  ``ghost`` (the recorded position
    while ``layout`` is what the camera read) is drawn as dashed outlines on the points where the
    two differ.
    """
    side = layout.on_roll if mark_side is None else mark_side
    side = 0 if side is None else side
    marked: dict[int | str, str] = {}
    for mark in marks:
        if mark.point == 25:
            marked["bar-bottom" if side == 0 else "bar-top"] = mark.kind
        elif mark.point == 0:
            marked["off-bottom" if side == 0 else "off-top"] = mark.kind
        elif 1 <= mark.point <= 24:
            marked[to_display(layout.variant, side, mark.point)] = mark.kind
    label_side = layout.on_roll if layout.on_roll is not None else 0
    out: list[str] = []
    attrs = f' id="{escape(element_id)}"' if element_id else ""
    classes = "board" + (" editable" if editable else "") + (" has-alert" if marked else "") + (
        f" {extra_class}" if extra_class else "")
    box = " ".join(f"{v:g}" for v in (view or (0, 0, WIDTH, HEIGHT)))
    out.append(
        f'<svg{attrs} class="{classes}" xmlns="http://www.w3.org/2000/svg" viewBox="{box}" '
        f'role="img" aria-label="{escape(t("board.aria"))}" data-variant="{escape(layout.variant)}" '
        f'data-on-roll="{"" if layout.on_roll is None else layout.on_roll}">'
    )
    out.append(f'<rect class="frame" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" rx="14"/>')
    out.append(f'<rect class="felt" x="{LEFT_X}" y="{TOP_Y}" width="{HALF_W}" height="{BOTTOM_Y - TOP_Y}"/>')
    out.append(f'<rect class="felt" x="{RIGHT_X}" y="{TOP_Y}" width="{HALF_W}" height="{BOTTOM_Y - TOP_Y}"/>')
    out.append(f'<rect class="bar" x="{BAR_X}" y="0" width="{BAR_W}" height="{HEIGHT}"/>')
    out.append(f'<rect class="tray" x="{TRAY_X}" y="{TOP_Y}" width="{TRAY_W}" height="{BOTTOM_Y - TOP_Y}" rx="6"/>')
    for d in range(1, 25):
        x, base, direction = _point_geometry(d)
        tip = base + direction * (POINT_LEN - 8)
        shade = "pt-a" if d % 2 else "pt-b"
        kind = marked.get(d)
        mark_cls = f" mark mark-{kind}" if kind else ""
        label = d if label_side == 0 else opponent_point(layout.variant, d)
        out.append(
            f'<g class="point{mark_cls}" data-point="{d}" data-label="{label}">'
            f'<rect class="hit" x="{x}" y="{min(base, base + direction * POINT_LEN)}" width="{PW}" height="{POINT_LEN}"/>'
            f'<polygon class="tri {shade}" points="{x + 2},{base} {x + PW - 2},{base} {x + PW / 2:.0f},{tip}"/>'
        )
        if kind:
            out.append(
                f'<rect class="mark-ring" x="{x + 2}" y="{min(base, base + direction * POINT_LEN) + 1}" '
                f'width="{PW - 4}" height="{POINT_LEN - 2}" rx="8"/>'
            )
        cx = x + PW / 2
        _stack(out, cx, base, direction, layout.bottom[d - 1], "ck-light")
        _stack(out, cx, base, direction, layout.top[d - 1], "ck-dark")
        if ghost is not None and (ghost.bottom[d - 1], ghost.top[d - 1]) != (layout.bottom[d - 1], layout.top[d - 1]):
            _stack(out, cx, base, direction, ghost.bottom[d - 1], "ck-ghost ghost-light")
            _stack(out, cx, base, direction, ghost.top[d - 1], "ck-ghost ghost-dark")
        label_y = base + direction * (POINT_LEN + 14)
        out.append(f'<text class="pt-label" x="{cx:.0f}" y="{label_y:.0f}">{label}</text></g>')
    # bar: player 0's checkers on the bottom half of the bar, player 1's on the top half
    bar_cx = BAR_X + BAR_W / 2
    for key, count, base, direction, cls in (
        ("bar-bottom", layout.bottom[24], MID_Y + 2 * R + 6, 1, "ck-light"),
        ("bar-top", layout.top[24], MID_Y - 2 * R - 6, -1, "ck-dark"),
    ):
        kind = marked.get(key)
        y0 = MID_Y if direction > 0 else TOP_Y
        out.append(f'<g class="barzone{" mark mark-" + kind if kind else ""}" data-point="{key}">')
        out.append(f'<rect class="hit" x="{BAR_X}" y="{y0:.0f}" width="{BAR_W}" height="{MID_Y - TOP_Y:.0f}"/>')
        if kind:
            out.append(f'<rect class="mark-ring" x="{BAR_X + 3}" y="{y0 + 3:.0f}" width="{BAR_W - 6}" '
                       f'height="{MID_Y - TOP_Y - 6:.0f}" rx="8"/>')
        _stack(out, bar_cx, base - direction * R, direction, count, cls, limit=3)
        if ghost is not None:
            was = ghost.bottom[24] if key == "bar-bottom" else ghost.top[24]
            if was != count:
                _stack(out, bar_cx, base - direction * R, direction, was, "ck-ghost " + cls.replace("ck-", "ghost-"),
                       limit=3)
        out.append("</g>")
    # borne off: thin slabs in the tray, player 0 at the bottom
    slab_h = 12  # 15 slabs and their count stay clear of the turn marker and the pip counts
    for key, count, base, direction, cls in (
        ("off-bottom", layout.bottom_off, BOTTOM_Y - 6, -1, "off-light"),
        ("off-top", layout.top_off, TOP_Y + 6, 1, "off-dark"),
    ):
        kind = marked.get(key)
        y0 = MID_Y if direction < 0 else TOP_Y
        out.append(f'<g class="offzone{" mark mark-" + kind if kind else ""}" data-point="{key}">')
        out.append(f'<rect class="hit" x="{TRAY_X}" y="{y0:.0f}" width="{TRAY_W}" height="{MID_Y - TOP_Y:.0f}"/>')
        if kind:
            out.append(f'<rect class="mark-ring" x="{TRAY_X + 3}" y="{y0 + 3:.0f}" width="{TRAY_W - 6}" '
                       f'height="{MID_Y - TOP_Y - 6:.0f}" rx="8"/>')
        for i in range(count):
            y = base + direction * (i * slab_h) - (slab_h - 2 if direction < 0 else 0)
            out.append(f'<rect class="slab {cls}" x="{TRAY_X + 10}" y="{y:.0f}" width="{TRAY_W - 20}" '
                       f'height="{slab_h - 3}" rx="3"/>')
        if count:
            ty = base + direction * (count * slab_h + 18) + (6 if direction < 0 else 0)
            out.append(f'<text class="off-count" x="{TRAY_X + TRAY_W / 2:.0f}" y="{ty:.0f}">{count}</text>')
        out.append("</g>")
    # whose turn: a marker on the tray edge of the side on roll
    if layout.on_roll is not None and layout.turn_marker:
        y = BOTTOM_Y - 4 if layout.on_roll == 0 else TOP_Y + 4
        out.append(f'<circle class="turn turn-{layout.on_roll}" cx="{TRAY_X + TRAY_W / 2:.0f}" cy="{MID_Y + (60 if layout.on_roll == 0 else -60):.0f}" r="12"/>')
        out.append(f'<text class="turn-label" x="{TRAY_X + TRAY_W / 2:.0f}" y="{MID_Y + (95 if layout.on_roll == 0 else -82):.0f}">'
                   f'{escape(t("board.to_play"))}</text>')
        del y
    # pip counts (not in tournament mode)
    if layout.pips is not None:
        out.append(f'<text class="pips pips-1" x="{TRAY_X + TRAY_W / 2:.0f}" y="{MID_Y - 14:.0f}">{layout.pips[1]}</text>')
        out.append(f'<text class="pips pips-0" x="{TRAY_X + TRAY_W / 2:.0f}" y="{MID_Y + 28:.0f}">{layout.pips[0]}</text>')
        out.append(f'<text class="pips-word" x="{TRAY_X + TRAY_W / 2:.0f}" y="{MID_Y + 6:.0f}">{escape(t("board.pips"))}</text>')
    # dice: in the right half for player 0, the left half for player 1 (as at the board)
    if layout.dice:
        half_x = RIGHT_X if layout.on_roll in (0, None) else LEFT_X
        x = half_x + HALF_W / 2 - (DIE + 8) * min(len(layout.dice), 4) / 2 + 4
        cls = "die-dark" if layout.on_roll == 1 else "die-light"
        for i, value in enumerate(layout.dice[:4]):
            _die(out, x + i * (DIE + 8), MID_Y - DIE / 2, value, cls)
    # cube: centred on the bar, or at the owner's edge
    if layout.variant == "backgammon":
        value = layout.cube_value if layout.cube_value > 1 else 64
        cy = MID_Y if layout.cube_owner is None else (BOTTOM_Y - 24 if layout.cube_owner == 0 else TOP_Y + 24)
        out.append(f'<g class="cube{" cube-owned" if layout.cube_owner is not None else ""}">'
                   f'<rect x="{bar_cx - 22:.0f}" y="{cy - 22:.0f}" width="44" height="44" rx="6"/>'
                   f'<text x="{bar_cx:.0f}" y="{cy + 8:.0f}">{value}</text></g>')
    out.append("</svg>")
    return "".join(out)


#: The two halves of the board the phone's correction editor shows one above the other, so that
#: each point is a tap target of 44 px or more on a 390 px wide screen: the left half with the bar,
#: then the right half (the borne-off tray is left out: it is not edited).
LEFT_HALF = (0.0, 0.0, float(BAR_X + BAR_W), float(HEIGHT))
RIGHT_HALF = (float(RIGHT_X), 0.0, float(HALF_W + MARGIN), float(HEIGHT))


def render_editor(layout: BoardLayout, t: Translate = lambda key: key, marks: Sequence[PointMark] = (),
                  element_id: str = "editor") -> str:
    """The correction editor: the whole board (wide screens) and the board in two halves (phones);
    the page's style shows one or the other."""
    full = render(layout, t, marks, editable=True, element_id=element_id, extra_class="editor-full")
    halves = "".join(
        render(layout, t, marks, editable=True, element_id=f"{element_id}-{name}", view=box, extra_class="half")
        for name, box in (("left", LEFT_HALF), ("right", RIGHT_HALF))
    )
    return f'{full}<div class="editor-halves">{halves}</div>'


def render_snapshot(snap: Snapshot, t: Translate = lambda key: key, editable: bool = False, element_id: str = "") -> str:
    """The live board.  During an alert or a question it is what the camera read (the marks are
    about that board), with the recorded position as ghost checkers where the two differ."""
    marks: tuple[PointMark, ...] = ()
    read: Position | None = None
    if snap.alert is not None:
        marks, read = snap.alert.points, snap.alert.read
    elif snap.question is not None:
        marks, read = snap.question.points, snap.question.read
    recorded = layout_from_snapshot(snap)
    if read is None or read.variant != snap.variant:
        return render(recorded, t, marks, None, editable, element_id)
    seen = layout_from_position(read, snap.on_roll, dice=snap.dice, cube_value=snap.cube_value,
                                cube_owner=snap.cube_owner, show_pips=False)
    return render(seen, t, marks, None, editable, element_id, ghost=recorded)
