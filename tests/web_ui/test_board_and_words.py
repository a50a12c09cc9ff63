"""The board drawing (numbering both ways, stacks, marks) and the translation files."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from rules.position import Position, starting_position
from web_ui import board_svg
from web_ui.i18n import LANGUAGES, catalogue
from web_ui.options import VARIANTS, options_for, parse_options
from web_ui.view import PointMark

POSITIONS = [
    starting_position("backgammon"),
    Position((0,) * 5 + (7, 0, 3) + (0,) * 4 + (3,) + (0,) * 7 + (1,) + (0,) * 3 + (1,), (2,) * 3 + (0,) * 21 + (1,),
             "backgammon"),
    starting_position("nardy"),
    Position((0,) * 12 + (1, 2) + (0,) * 9 + (12, 0), (0,) * 5 + (3, 3) + (0,) * 16 + (9, 0), "nardy"),
]


@pytest.mark.parametrize("position", POSITIONS, ids=repr)
@pytest.mark.parametrize("on_roll", [0, 1])
def test_layout_round_trip(position: Position, on_roll: int) -> None:
    layout = board_svg.layout_from_position(position, on_roll)
    assert sum(layout.bottom) + layout.bottom_off == 15 and sum(layout.top) + layout.top_off == 15
    assert board_svg.position_from_layout(position.variant, layout.bottom, layout.top, on_roll) == position


def test_display_is_player_zeros_numbering() -> None:
    start = starting_position("backgammon")
    layout = board_svg.layout_from_position(start, 1)
    # player 0 (light, bottom) has 5 on its 6-point; player 1's 24-point is player 0's 1-point
    assert layout.bottom[5] == 5 and layout.top[0] == 2 and layout.top[18] == 5
    nardy = board_svg.layout_from_position(starting_position("nardy"), 0)
    assert nardy.bottom[23] == 15 and nardy.top[11] == 15  # heads: my 24, their 24 = my 12


def test_tall_stacks_show_their_count() -> None:
    svg = board_svg.render(board_svg.layout_from_position(starting_position("nardy"), 0))
    assert svg.count('class="ck ck-light"') == 5 and ">15</text>" in svg


def test_marks_bar_and_off() -> None:
    layout = board_svg.layout_from_position(starting_position("backgammon"), 1)
    svg = board_svg.render(layout, marks=[PointMark(25, "missing"), PointMark(0, "extra"), PointMark(6, "extra")])
    assert 'class="barzone mark mark-missing" data-point="bar-top"' in svg
    assert 'class="offzone mark mark-extra" data-point="off-top"' in svg
    assert 'class="point mark mark-extra" data-point="19"' in svg


def test_dice_cube_turn_and_pips() -> None:
    layout = board_svg.layout_from_position(starting_position("backgammon"), 0, dice=(6, 6), cube_value=4,
                                            cube_owner=1)
    svg = board_svg.render(layout)
    assert svg.count('class="die die-light"') == 2
    assert 'class="cube cube-owned"' in svg and ">4</text>" in svg
    assert 'class="turn turn-0"' in svg and ">167</text>" in svg
    hidden = board_svg.render(board_svg.layout_from_position(starting_position("backgammon"), 0, show_pips=False))
    assert 'class="pips' not in hidden
    assert 'class="cube' not in board_svg.render(board_svg.layout_from_position(starting_position("nardy"), 0))


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_translation_complete_with_same_placeholders(lang: str) -> None:
    english, own = catalogue("en"), catalogue(lang)
    assert set(own) == set(english)
    for key, text in english.items():
        assert _placeholders(own[key]) == _placeholders(text), (lang, key)
        assert own[key].strip(), (lang, key)


def test_every_option_and_choice_is_translated() -> None:
    english = catalogue("en")
    for variant in VARIANTS:
        assert f"variant.{variant}" in english
        for spec in options_for(variant):
            assert f"opt.{spec.name}" in english and f"opt.{spec.name}.help" in english, spec.name
            for choice in spec.choices:
                assert f"opt.{spec.name}.{choice}" in english, (spec.name, choice)


def test_players_own_words() -> None:
    words = {
        "ro": ["Table lung", "Table nebun", "marț", "oin"],
        "ru": ["Длинные нарды", "ойн", "марс", "кокс"],
        "bg": ["Табла", "Гюлбара", "марс"],
        "tr": ["Tavla", "Uzun tavla", "mars", "koks"],
        "uz": ["Uzun nard", "oyin", "mars", "koks"],
    }
    for lang, expected in words.items():
        text = json.dumps(catalogue(lang), ensure_ascii=False)
        for word in expected:
            assert word in text, (lang, word)


def test_translation_files_are_packaged() -> None:
    folder = Path("web_ui/translations")
    assert sorted(p.stem for p in folder.glob("*.json")) == sorted(LANGUAGES)


def test_option_parsing() -> None:
    values = parse_options("backgammon", {"backgammon.crawford": "0", "nardy.koks": "1"})
    assert values["crawford"] is False and "koks" not in values
    with pytest.raises(ValueError, match="has no option"):
        parse_options("sixone", {"sixone.koks": "1"})


def _text_y(svg: str, cls: str) -> list[float]:
    import re

    return [float(y) for y in re.findall(rf'<text class="{cls}" x="[0-9.]+" y="([0-9.]+)"', svg)]


@pytest.mark.parametrize("on_roll", [0, 1])
def test_fifteen_borne_off_clear_the_turn_marker(on_roll: int) -> None:
    """Issue 24 item 8: the borne-off count sat on "to play" once 13 or more were off."""
    layout = board_svg.BoardLayout("backgammon", tuple([0] * 25), tuple([0] * 25), on_roll,
                                   bottom_off=15, top_off=15)
    svg = board_svg.render(layout)
    counts, label = _text_y(svg, "off-count"), _text_y(svg, "turn-label")
    assert len(counts) == 2 and len(label) == 1
    assert all(abs(count - label[0]) >= 20 for count in counts), (counts, label)
    over = board_svg.render(board_svg.BoardLayout("backgammon", tuple([0] * 25), tuple([0] * 25), on_roll,
                                                  bottom_off=15, turn_marker=False))
    assert 'class="turn' not in over
