"""Every threshold of the vision pipeline in one place (chesscog style: stages read config, not
constants), so a deployment can tune them from a file without touching code."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class VisionConfig:
    """Thresholds and sizes used by the stages; units are noted per field."""

    # --- canonical (top-down) board image ---------------------------------------------------
    canonical_width: int = 576  # px across the playing surface after the homography
    # --- physical proportions used when a reference frame cannot tell us better -------------
    bar_fraction: float = 0.0909  # bar width / surface width
    # The board's proportions: from its sides in the picture, unless a pinhole camera of this
    # horizontal field of view (Camera Module 2) says they differ by more than `oblique_margin`
    # (the camera looks at the board obliquely and its far half is foreshortened)
    camera_hfov_deg: float = 62.0
    oblique_margin: float = 0.03
    checker_fraction: float = 0.0705  # checker diameter / surface width
    # --- gate ---------------------------------------------------------------------------------
    gate_width: int = 160  # px: frames are downscaled to this width for the gate
    motion_threshold: float = 18.0  # grey levels: a pixel "moved" above this difference
    motion_fraction: float = 0.004  # share of surface pixels that must move to call it motion
    settle_seconds: float = 0.6  # stillness needed before a frame counts as settled
    hand_chroma_threshold: float = 12.0  # Lab chroma change from the reference that means "something there"
    hand_luma_threshold: float = 24.0  # per cent lightness change (after global gain) that means the same
    hand_min_outside: float = 0.001  # share of the gate image an occluder covers outside the surface
    hand_min_inside: float = 0.005  # share of the surface an occluder covers inside it
    hand_min_outside_large: float = 0.00015  # ...or this little outside (3 gate px) when it covers much inside:
    hand_min_inside_large: float = 0.025  # this share of the surface (about four checkers)
    hand_outside_margin: float = 0.035  # board units beyond the surface edge that count as outside
    # An occluder's outside part reaches this far beyond the surface edge (board units) or the image
    # border, on at least `hand_min_far` gate px: an arm comes from afar, a die that fell off the
    # surface lies within ~0.05 of it
    hand_far_margin: float = 0.1
    hand_min_far: int = 1
    # ...unless its outside part is broader than anything a die by the rim shows (an arm whose far
    # part matches the floor or table around the board)
    hand_min_outside_broad: float = 0.0017
    hand_entry_checkers: float = 1.6  # checker diameters an arm entering through the image border onto the surface spans
    hand_entry_checker_lab: float = 25.0  # Lab distance within which a pixel there has a checker's colour
    hand_entry_narrow: float = 0.5  # ...or this share of that broad, covering `hand_min_inside` of the surface in other colours
    hand_entry_unlike: float = 0.5  # ...or that broad in any colour (a sleeve), covering the surface mostly in other colours
    skin_min_fraction: float = 0.02  # share of the surface in skin colours that alone means a hand
    # --- checkers -----------------------------------------------------------------------------
    occupancy_threshold: float = 0.45  # 0..1 score above which a profile row holds a checker
    lightness_tolerance: float = 0.15  # share of the background's lightness a change may have unnoticed
    lightness_floor: float = 10  # Lab L change always tolerated (glare on a dark surface)
    shadow_gain_min: float = 0.7  # (L*+16) ratio range within which the board's chroma is scaled
    shadow_gain_max: float = 1.1  # ...with its lightness before comparing (shadows, brighter light)
    lighting_chroma: float = 5.0  # Lab a*b* units: a change within this of a scaled board colour is lighting
    lighting_radius: float = 1.2  # checker diameters over which the local lighting gain is averaged
    lighting_outlier: float = 0.08  # gain difference from the local lighting that marks an object, not light
    diff_scale: float = 30.0
    texture_gain: float = 8.0  # weight of texture change against colour change
    colour_ratio: float = 0.65  # distance to a checker colour / distance to the board's colour
    colour_separation: float = 8.0  # Lab: board colours this near a checker colour skip that test
    colour_min_change: float = 10.0  # Lab units of change below which the colour test is damped  # colour distance (Lab units) that scores as fully occupied
    bar_min_run: float = 0.8  # checker diameters: a shorter occupied stretch on the bar is glare or a shadow
    bar_trim_delta: float = 12.0  # Lab distance (lightness at half weight) within which a bar row is bare bar
    bar_colour_limit: float = 35.0  # Lab distance from both checker colours: not a checker on the bar
    rim_min: float = 2.5  # Lab L per px: a run with no step this sharp has no checker rim (glare, shadow)
    beside_die_offsets: tuple[float, ...] = (0.36, 0.41, 0.46)  # checker diameters off the axis where a checker under a die shows
    under_slot: float = 0.2  # share of a top slot over which a checker shows beside a die: the slot is kept
    hidden_slot: float = 0.6  # share of a checker slot under a die beyond which its colour does not vote
    max_stack: int = 15
    base_reach: float = 1.1  # checker diameters: a long run starting this near the board edge starts at it
    base_min_run: float = 0.5  # ...if at least this many checker diameters long...
    base_breadth: float = 0.5  # ...if this share of its rows is occupied a quarter diameter off the axis
    base_rim: float = 0.35  # ...or if this share of a checker's circle resting on the edge shows a new round rim
    base_rim_gaps: tuple[float, ...] = (0.0, 0.05, 0.1)  # checker diameters: ... or resting this far from it
    next_rim: float = 0.55  # ...and a short stack goes on while the next checker's circle shows this share
    rim_edge_min: float = 4.0  # L* per px: a rim's edge across the circle is at least this sharp...
    rim_edge_gain: float = 1.5  # ...and this many times (plus 1) sharper than the empty board's there
    floating_min_run: float = 0.9  # checker diameters: a run this long off the stack rests on hidden checkers...
    floating_gap_max: float = 2.5  # ...when the gap below it is at most this long
    rim_pair_min: float = 0.6  # checker diameters from a base sliver to the start of a second one: the
    rim_pair_max: float = 1.1  # ...two rims of one checker the colour of its point
    speck_max: float = 0.15  # checker diameters: a shorter stretch off the edge, before any stack, is noise
    edge_speck_run: float = 0.9  # checker diameters: a speck at the edge and the stretch after it must reach this far
    die_reach: float = 0.38  # checker diameters from a die's centre that its body and shadow may cover
    die_shadow: float = 0.3  # checker diameters past a die's body that its shadow may lengthen a run
    die_fringe: float = 0.4  # checker diameters of occupied rows a run around a die must show beyond the die
    die_tail_join: float = 0.1  # checker diameters a stack must show past a die it runs under (shorter: the die's shadow)
    die_tail_min: float = 0.5  # checker diameters: a stack hidden at its base by a die must show this much past it
    slot_board_separation: float = 60.0  # Lab: a top slot is tested against the board only where they differ this much
    mixed_board_tolerance: float = 25.0  # Lab: in a two-coloured stack, a top slot this near the empty board is board
    mixed_board_ratio: float = 0.5  # ...as is one this many times nearer the board than its checker colour
    slot_board_ratio: float = 1.0  # top slot dropped when nearer the empty board than its checker colour by this factor
    hole_max_checkers: float = 1.5  # an enclosed region larger than this many checker discs is board, not a rim's inside
    min_edge_spacing: float = 0.2  # checker diameters between two detected rims
    comb_clip_percentile: float = 90.0  # rim profile clipped here before its period is measured
    comb_clip_median: float = 2.5  # ...and at this multiple of its median (a die's edges beside a stack)
    comb_ratio: float = 0.75  # a rim spacing scoring this share of the best one is still plausible
    comb_half_ratio: float = 0.5  # ...and half of it, peaking at this share of the best, is the spacing (0: off)
    use_dice: bool = True  # read dice with vision.dice (off: checkers only)
    # how the points' checkers are counted: "classical" (vision.checkers, against the empty board)
    # or "learned" (vision.learned: the CNN on each point strip and the bar's two halves)
    checker_reader: str = "classical"
    # the learned counter reads each strip beside the same strip of the calibration's empty-board
    # photo, when it has one (off: the strip alone, as without such a photo)
    learned_uses_empty_board: bool = True
    # the learned counter reads its least sure strip below 0.9 again, the board cut with its
    # corners a click off, twice (vision.learned.LOOKS, LOOK_AT): a place read otherwise then is
    # doubted (off: one look, as before 2026-12-06's seventh stop)
    more_looks: bool = True
    # how the gate tells a hand or arm over the board: "classical" (vision.gate: what changed
    # since the empty-board photo, crossing the rim) or "learned" (vision.occluder: the CNN on the
    # board and its surroundings, no reference needed); hand_probability: the learned test's
    # threshold
    hand_test: str = "classical"
    hand_probability: float = 0.5
    # how the dice are read: "classical" (vision.dice: pips and faces against the empty board) or
    # "learned" (vision.dice_learned: a finder CNN on the rectified board, a reader CNN on each
    # die's crop; no reference needed)
    dice_reader: str = "classical"
    # --- recheck ------------------------------------------------------------------------------
    recheck_max_shift_px: float = 6.0  # corner drift that counts as a bumped board / camera

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VisionConfig:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown vision setting {sorted(unknown)[0]!r}")
        return cls(**data)

    @classmethod
    def with_readers(cls, spec: str, synthetic: bool = False) -> VisionConfig:
        """The reader of each part from a setting (`referee run`'s ``readers``): ``auto``,
        ``classical`` or ``learned`` for all three, or parts named one by one, e.g.
        ``checkers=learned,dice=learned`` (a part not named is ``auto``).  ``auto`` (for all
        or for a part) is `auto_readers` of ``synthetic``: whether the pictures are the 2-D
        renderer's.  Raises ValueError naming what is wrong."""
        parts = {"checkers": "checker_reader", "dice": "dice_reader", "hands": "hand_test"}
        if not isinstance(spec, str):
            raise ValueError(f"readers: must be text such as \"learned\", not {spec!r}")
        spec = spec.strip()
        chosen: dict[str, str] = {}
        if spec in CHOICES:
            chosen = dict.fromkeys(parts.values(), spec)
        else:
            for item in spec.split(","):
                part, _, reader = (text.strip() for text in item.partition("="))
                if part not in parts or reader not in CHOICES:
                    raise ValueError(f"readers: {item.strip()!r} is not {', '.join(CHOICES[:-1])} or "
                                     f"{CHOICES[-1]}, or PART=READER (parts: {', '.join(parts)}; "
                                     f"readers: {', '.join(CHOICES)})")
                if parts[part] in chosen:
                    raise ValueError(f"readers: {part} is named twice")
                chosen[parts[part]] = reader
        auto = auto_readers(synthetic)
        return cls(**{name: auto if chosen.get(name, "auto") == "auto" else chosen[name] for name in parts.values()})

    def readers(self) -> str:
        """The readers in use, as a ``readers`` setting names them (``checkers=…,dice=…,hands=…``)."""
        return f"checkers={self.checker_reader},dice={self.dice_reader},hands={self.hand_test}"


def auto_readers(synthetic: bool) -> str:
    """The readers ``auto`` stands for: ``classical`` on the 2-D renderer's pictures (the synthetic
    camera, datasets written by `referee render`), the pictures the classical readers were tuned
    on and read exactly; ``learned`` on every other picture (a real camera, the 3-D yardstick),
    where the classical readers read no board of a design they were not tuned on exactly and
    the learned ones most (README, "The learned readers")."""
    return "classical" if synthetic else "learned"


#: the readers each part of the vision can use (VisionConfig.with_readers)
READERS = ("classical", "learned")
#: what a ``readers`` setting may name for a part: a reader, or ``auto`` (`auto_readers`)
CHOICES = ("auto", *READERS)
