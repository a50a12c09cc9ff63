"""The learned checker counter: a small CNN (vision/models/checker_count.onnx, trained by
synth.train_checkers) counts the checkers on each point strip (vision.strips) and tells whether
they are the lighter or the darker side's, run by `vision.nets` (ONNX Runtime, or OpenCV's
`cv2.dnn`).  The bar's two halves are read by the bar reader (vision/models/bar_count.onnx): the
same network trained further on the bar, whose look (raised, of the frame's wood, often as dark
as the dark checkers) the points' strips hardly teach.

It needs no photo of the empty board and no learnt checker colours: the strips are read as they
are, each judged against the board around it in the same light.  A photo of the empty board, when
the calibration has one, improves it (`EmptyBoard`): each strip is read beside the same strip of
the empty board (the model's other three input channels, zeros without one), and a strip whose
features are those of the same point on the empty board is empty, however much the board's own
pattern (marble veins, inlay, a dark point) looks like checkers to the counter.  Before that,
each frame's strips are brought to the empty board's colour balance (`match_colour`): a lamp of
another colour since calibration tints the whole board, and a tinted empty bar is no longer
"the same as on the empty board".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from rules.position import CHECKERS
from vision.calibration import CLICK, BoardGeometry
from vision.checkers import CheckerReading, PointReading
from vision.nets import load_net, softmax
from vision.observation import CheckerTotals
from vision.strips import BAR_STRIPS, board_strips, checker_rows

__all__ = ["AMBIGUOUS_DISTANCE", "BAR_MODEL_PATH", "BY_COLOUR_SURE", "COLOUR_SPREAD", "DOUBTFUL_EMPTY",
           "EMPTY_DISTANCE", "HUE_APART", "HUE_CLOSER", "HUE_TURNED", "JUDGED_AWAY", "MISREAD_SHARE", "MODEL_PATH",
           "LOOKS", "LOOK_AT", "LOOK_BELOW", "LOOK_NUDGE", "NEAR_EMPTY_FLOOR", "NEAR_MIDDLE", "REFIT_ODDS", "SHADED_EMPTY", "TOTALS_SURE",
           "UNSTEADY", "BoardCounter", "CheckerCounter", "EmptyBoard",
           "PointCounts", "StartColours", "beside_empty", "colour_gain", "count_points", "differ_in_hue", "empty_board",
           "match_colour", "other_side_by_hue", "read_strips", "refit_odds", "share_within", "stack_colours", "stack_hues",
           "start_colours", "within_checkers"]

MODEL_PATH = Path(__file__).with_name("models") / "checker_count.onnx"
#: the bar reader: the counter trained further on the bar's halves, which it reads instead of the
#: point counter (`BoardCounter`; the default of `empty_board` and `count_points`, whose
#: ``bar_model=None`` has the point counter read the bar too)
BAR_MODEL_PATH: Path | None = MODEL_PATH.with_name("bar_count.onnx")
#: a strip whose features lie within this cosine distance of the same strip's on the empty-board
#: photo reads as empty (chosen on tuning sets: empty points mostly within 0.1 of it, occupied
#: points mostly beyond 0.15)
EMPTY_DISTANCE = 0.1
#: a strip read as occupied whose features still lie within this distance of the empty board's, and
#: for which the counter itself gives an empty point at least `DOUBTFUL_EMPTY`, reads empty (a moved
#: lamp's shadow or glare on an empty point, chosen on tuning sets: such readings were wrong 4 times
#: in 5)
AMBIGUOUS_DISTANCE = 0.25
DOUBTFUL_EMPTY = 0.1
#: how sure such a strip, read empty by that rule, is: the share of them that were empty on the
#: tuning sets (held-out designs at seeds 31007-31017: 34 of 37 strips).  The counter's own split
#: between empty and what it saw there is no measure of it: it chose the other reading.
SHADED_EMPTY = 0.9
#: the probability of an empty reading at the edge of `EMPTY_DISTANCE` (strips that close to the
#: empty board were empty 99 times in 100 on the tuning sets)
NEAR_EMPTY_FLOOR = 0.5
#: the empty board is cut this many times (as calibrated, then corners a click off) and averaged
EMPTY_CUTS = 6
#: `match_colour` compares every this many pixels of the strips, across and along
COLOUR_STEP = 4
#: a strip whose count the counter gives less than this, and that does not simply look as the
#: empty board there, is read mirrored too (`count_points`; chosen on tuning sets)
MIRROR_BELOW = 0.9
#: the board's two sides differ in hue when their hues (as calibrated, or the medians of the stacks
#: read as each side's) lie at least this far apart in the CIELAB a*b* plane (a yellow and a blue
#: set: 55-75; white and black, or black with white inlays: under 10; chosen on tuning sets)
HUE_APART = 20.0
#: on such a board, a stack whose hue lies this many times closer to the other side's hue than to
#: its own side's is the other side's (`other_side_by_hue`; chosen on tuning sets)
HUE_CLOSER = 0.3
#: how sure the colour of a stack turned over by its hue is: at most the share of such stacks that
#: were the other side's on the tuning sets (held-out designs at seeds 31007-31013, 31097, 31099 and
#: the tuning designs recoloured at seeds 4501 and 4502): 150 of 157 against the sides' hues as
#: calibrated, 68 of 74 against the frame's own
HUE_TURNED = 0.9
#: the counter's colours are trusted on a board unless it reads at least this share of the start
#: position's stacks in the other side's colour (`StartColours`; chosen on tuning sets: where it
#: misread one stack of eight its colours were still the better, where it misread two or more,
#: mostly both sides read as one colour, the stacks' own colours were)
MISREAD_SHARE = 0.25
#: each side's spread of colour over the start position's stacks, as a covariance in CIELAB, is
#: at least this much along every axis (units squared): a side of one stack has no spread to learn
#: from (chosen on tuning sets: of the colours of stacks on the tuning boards where the counter's
#: were not trusted, 48 read wrong, against 66 at 4, 53 at 32 and 64 with no spread learnt)
COLOUR_SPREAD = 16.0
#: a stack judged by its colour (`StartColours.colour_p`) is this sure of its side when its colour
#: lies at least `NEAR_MIDDLE` of the way from the middle between the two sides' to its side's, and
#: from one half to this as it nears that: about the share of such stacks right on the tuning sets
#: (the tuning designs recoloured at seeds 4501 and 4502, the held-out ones at 31105 and 31107:
#: 0.97 of 1,295 beyond it, 0.92 of 104 from a quarter to a half of the way, 0.75 of 32 within that)
BY_COLOUR_SURE = 0.95
NEAR_MIDDLE = 0.5
#: more looks (`count_points`' ``looks``): the board cut again this many times, each corner moved
#: by up to `LOOK_NUDGE` of its diagonal (a click off).  Chosen on tuning sets (the held-out designs
#: at seeds 31007-31013, 31097, 31099; the same recoloured at 31105 and 31107), boards doubted, wrong
#: and right (the least sure place below the referee's 0.3, or a place a look reads otherwise): one
#: look, 2 of 26 and 8 of 571, recoloured 16 of 36 and 12 of 167; two looks as kept, 10 of 26 and
#: 16 of 571, 21 of 36 and 15 of 167; two looks reading every strip not simply empty again, 12 of 26
#: and 18 of 571, 23 of 36 and 17 of 167 (over the read's budget).  Simulated on dumped readings, one
#: look two clicks off doubted 10-17 of 26 and 15-26 of 572 with four seeds of the nudge: two looks
#: a click off vary less.
LOOKS = 2
LOOK_NUDGE = CLICK
#: the strips another look reads: of those read below this (a stack's count times its colour; 2.3
#: strips a frame on those plain tuning sets, up to 17 on a recoloured board judged by its colours)
#: and not simply the empty board's, the `LOOK_AT` least sure.  Simulated on dumped readings, every
#: such strip, the two least sure and the least sure doubted alike (12, 12 and 11 of 26 wrong boards,
#: 14 of 572 right ones; recoloured 24, 23 and 20 of 36, 16 of 171), and a strip costs 0.6 ms
LOOK_BELOW = 0.9
LOOK_AT = 1
#: how sure a place is that another look read otherwise: at most the share of such places whose
#: first reading was right on those tuning sets (looks a click off: 11 of 27; recoloured 16 of 38)
UNSTEADY = 0.4
#: given the game's totals (`count_points`' ``totals``), a reading that holds at least this share of
#: the probability of all the readings they allow (`share_within`) is that sure at every place, a
#: place the counter was less sure of included (the totals leave little else it could be), unless
#: it was refitted to them against the counter's odds (`REFIT_ODDS`); a reading refitted to them
#: holding less, or against those odds, is doubted.  Chosen on tuning sets (held-out designs at
#: 31007, recoloured at 31105 and 31107): of 30 refitted readings the 8 holding 0.9 or more were all
#: right, below it 11 right and 11 wrong (shares 0.18-0.88); of 135 right recoloured boards, lifting
#: places so took those doubted from 23 to 14 at 0.9 (10-11 at 0.5-0.7), no wrong board's share
#: reaching 0.9 (vision/models/checker_count.md, "How sure the game's totals make a reading")
TOTALS_SURE = 0.9
#: ... and a refitted reading is trusted only when the counter itself found it at least this
#: likely against its own reading (`refit_odds`): a refit the counter finds far less likely is the
#: board disagreeing with the record (a checker knocked off, a record gone wrong), which the
#: referee asks about.  A stack of 14 told it is 15 (the 2-D renderer, the test of that) refits at
#: odds 0.05 with a share of 1.0; on the tuning sets (31007, 31009, recoloured 31105, 31107) the 12
#: refits holding 0.9 or more, all right, had odds 0.012-1.0, 10 of them 0.1 or more
REFIT_ODDS = 0.1
#: a strip the counter gives an empty point less than this, judged empty beside the empty board
#: (`beside_empty`), is judged so against the counter (`PointCounts.judged_away`).  On the tuning
#: sets (the held-out designs at 31007, 31009, 31137-31147, read with the game's totals), of the 4
#: wrong boards the reader was sure of, 3 are a lone checker so judged away where the totals allow
#: its side one fewer (a side that may be bearing off).  Its cost cannot be measured there (the
#: totals' most is the label's own, so a right board is never short); in play a side that bore a
#: checker off is short, and of 224 right boards whose side on roll may be bearing off, 16 had such
#: a point: about one bearing-off turn in 14 would be asked about
JUDGED_AWAY = 0.5


@dataclass
class PointCounts:
    """Per point (P1..P24): checkers counted, how sure the reading is of it (the counter's
    probability for that count and colour, or more when the game's totals leave no doubt of the
    reading: `totals_trusted`), and the stack's colour (0 light, 1 dark, None empty); the bar's
    near and far halves as (count, colour) and the lower of their probabilities."""

    counts: list[int]
    probabilities: list[float]
    colours: list[int | None]
    bar_halves: tuple[tuple[int, int | None], tuple[int, int | None]] = ((0, None), (0, None))
    bar_probability: float = 1.0
    #: the places (0..23: P1..P24, 24: the bar) another look read otherwise, each with what the
    #: first such look read there as (light, dark): their probabilities are at most `UNSTEADY`
    unsteady: list[tuple[int, tuple[int, int]]] = field(default_factory=list)
    #: the places read otherwise to fit the game's totals (`count_points`' ``totals``), each with
    #: how it read without them as (light, dark)
    refitted: list[tuple[int, tuple[int, int]]] = field(default_factory=list)
    #: given the game's totals, the reading's share of the probability of all the readings they
    #: allow (`share_within`; 0.0 without them): with `refit_odds`, whether they leave no doubt of
    #: it (`totals_trusted`)
    totals_share: float = 0.0
    #: the refitted reading's probability against the reading without the totals (`refit_odds`;
    #: 1.0 when nothing was refitted)
    refit_odds: float = 1.0
    #: the points (0..23) read empty beside the empty board though the counter saw checkers there
    #: (its empty point below `JUDGED_AWAY`): where the game's totals allow a side fewer checkers
    #: than it may have, such a point may hide its missing one (the reader doubts the reading)
    judged_away: list[int] = field(default_factory=list)

    @property
    def totals_trusted(self) -> bool:
        """Whether the game's totals leave little doubt about the reading: it holds at least
        `TOTALS_SURE` of the readings they allow and, when refitted to them, the counter found the
        refit at least `REFIT_ODDS` as likely as its own reading."""
        return _trusted(self.totals_share, self.refit_odds)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return [(n, 0) if c == 0 else (0, n) if c == 1 else (0, 0)
                for n, c in zip(self.counts, self.colours, strict=True)]

    @property
    def bar(self) -> tuple[int, int]:
        """(light, dark) on the bar, whichever half each lies on."""
        light_dark = [0, 0]
        for count, colour in self.bar_halves:
            if colour is not None:
                light_dark[colour] += count
        return light_dark[0], light_dark[1]

    def reading(self, canonical_size: tuple[int, int], checker_u: float) -> CheckerReading:
        """The counts as a `vision.checkers.CheckerReading` on the canonical board of
        ``canonical_size`` (width, height): each stack one row of checkers from its base (at most
        five drawn), as the dice stage's checker mask needs them."""
        w, h = canonical_size
        d = checker_u * w

        def runs(count: int, colour: int | None, start: float = 0.0) -> list[tuple[float, float, list[int]]]:
            shown = min(count, 5)
            return [(start, start + shown * d, [colour or 0] * shown)] if shown else []

        points = [PointReading(light=a, dark=b, confidence=p, runs=runs(n, c)) for (a, b), p, n, c
                  in zip(self.pairs, self.probabilities, self.counts, self.colours, strict=True)]
        (near, near_colour), (far, far_colour) = self.bar_halves
        # the bar's runs are measured from the board's far edge: the far half's stack ends at the
        # middle, the near half's starts there
        bar_runs = runs(far, far_colour, h / 2 - min(far, 5) * d) + runs(near, near_colour, h / 2)
        light, dark = self.bar
        return CheckerReading(points=points, bar_light=light, bar_dark=dark, bar_runs=bar_runs,
                              bar_confidence=self.bar_probability)


class CheckerCounter:
    """The ONNX model, loaded once."""

    def __init__(self, path: str | Path = MODEL_PATH, engine: str | None = None, what: str = "checker",
                 target: str = "train") -> None:
        self.net = load_net(path, what, target, engine)

    def probabilities(self, strips: np.ndarray,
                      references: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(N, H, W, 3) uint8 strips (and the same strips of the empty board, when there is a
        photo of it) -> (N, 16) probabilities of 0..15 checkers and (N, 2) of light / dark."""
        count, colour, _ = self.read_standardised(standardise(strips),
                                                  None if references is None else standardise(references))
        return count, colour

    def read_standardised(self, strips: np.ndarray,
                          references: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`probabilities` of strips (and references) already through `standardise`, and the
        (N, 96) features both heads read, each scaled to unit length."""
        refs = np.zeros_like(strips) if references is None else references
        count, colour, features = self.net.run(np.concatenate([strips, refs], axis=1), ["count", "colour", "features"])
        features = np.asarray(features, np.float64)
        return softmax(count), softmax(colour), features / (np.linalg.norm(features, axis=1, keepdims=True) + 1e-9)


class BoardCounter:
    """The counters of a board's strips: the point counter, and the bar's when it has its own
    (`BAR_MODEL_PATH`); `read_standardised` sends each strip to its own."""

    def __init__(self, model: str | Path = MODEL_PATH, bar_model: str | Path | None = BAR_MODEL_PATH) -> None:
        self.points = CheckerCounter(model)
        self.bar = None if bar_model is None else CheckerCounter(bar_model, what="bar reader", target="train-bar")

    def read_standardised(self, strips: np.ndarray, references: np.ndarray,
                          index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`CheckerCounter.read_standardised` of strips whose places on the board (0..25, as in
        `board_strips`) are ``index``."""
        if self.bar is None:
            return self.points.read_standardised(strips, references)
        on_bar = index >= BAR_STRIPS
        outputs: list[np.ndarray] = []
        for rows, counter in ((~on_bar, self.points), (on_bar, self.bar)):
            if rows.any():
                parts = counter.read_standardised(strips[rows], references[rows])
                outputs = outputs or [np.zeros((len(strips), *part.shape[1:])) for part in parts]
                for whole, part in zip(outputs, parts, strict=True):
                    whole[rows] = part
        return outputs[0], outputs[1], outputs[2]


@dataclass(frozen=True)
class EmptyBoard:
    """Each strip (P1..P24, the bar's near and far halves) of the photo of the empty board, as
    calibrated and standardised (they go into the counter beside each frame's), the counter's
    features of it (unit length): what "nothing here" looks like at each place of this board; and
    the strips as cut (uint8), whose colours `match_colour` brings a frame's to."""

    references: np.ndarray
    features: np.ndarray
    strips: np.ndarray
    #: the bar reader whose features of the bar these are (None: the point counter's)
    bar_model: str | Path | None = BAR_MODEL_PATH

    def distances(self, features: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
        """Cosine distance of each strip's (unit) features to the same strip's on the empty board
        (the strips ``index`` of the board's, when given: features of those alone)."""
        empty = self.features if index is None else self.features[index]
        return np.asarray(1.0 - (features * empty).sum(axis=1))


def standardise(strips: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 (or float) -> (N, 3, H, W) float32, each strip to zero mean and unit spread (as in
    training, synth.train_checkers.standardise); the model reads a frame's strips and the empty
    board's (zeros when there is no photo of it) side by side, six channels."""
    x = strips.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


def empty_board(image: np.ndarray, geometry: BoardGeometry, model: str | Path = MODEL_PATH,
                cuts: int = EMPTY_CUTS, seed: int = 0, bar_model: str | Path | None = BAR_MODEL_PATH) -> EmptyBoard:
    """The `EmptyBoard` of a photo of the empty board: its strips cut as calibrated and ``cuts - 1``
    times more with the corners moved by up to 0.4 % of the board (a click off, seeded), the
    features averaged (the bar's by ``bar_model``: `count_points` must be given the same)."""
    rng = np.random.default_rng(seed)
    counter = BoardCounter(model, bar_model)  # its models loaded once per engine (vision.nets.load_net)
    strips = board_strips(image, geometry)
    references = standardise(strips)
    index = np.arange(len(strips))
    total = counter.read_standardised(references, references, index)[2]
    for _ in range(cuts - 1):
        moved = standardise(board_strips(image, geometry.nudged(rng)))
        total = total + counter.read_standardised(moved, references, index)[2]
    return EmptyBoard(references, total / (np.linalg.norm(total, axis=1, keepdims=True) + 1e-9), strips, bar_model)


def match_colour(strips: np.ndarray, empty_strips: np.ndarray, step: int = COLOUR_STEP) -> np.ndarray:
    """A frame's (N, H, W, 3) strips, float32, with each colour channel scaled so that the board
    has the empty board's colour balance: by the median, over the strips' pixels (every ``step``-th
    across and along), of the empty board's value over the frame's.  Most of the board is bare in
    any position, so checkers, dice and a shadow's edge are outliers the median ignores; what it
    follows is the lamp's colour and brightness since calibration (the counter's own
    standardisation then removes brightness alone, not a tint)."""
    return strips.astype(np.float32) * colour_gain(strips, empty_strips, step)


def colour_gain(strips: np.ndarray, empty_strips: np.ndarray, step: int = COLOUR_STEP) -> np.ndarray:
    """`match_colour`'s gain of each colour channel, (3,) float32."""
    frame = strips[:, ::step, ::step].reshape(-1, 3).astype(np.float32)
    empty = empty_strips[:, ::step, ::step].reshape(-1, 3).astype(np.float32)
    return np.asarray(np.median((empty + 4.0) / (frame + 4.0), axis=0), np.float32)


def beside_empty(count_p: np.ndarray, distance: np.ndarray, empty_distance: float = EMPTY_DISTANCE,
                 ambiguous_distance: float = AMBIGUOUS_DISTANCE, doubtful_empty: float = DOUBTFUL_EMPTY,
                 near_floor: float = NEAR_EMPTY_FLOOR, shaded_empty: float = SHADED_EMPTY) -> np.ndarray:
    """The counter's (N, 16) probabilities judged against the empty board, given each strip's
    feature distance to the same strip of the empty board: a strip that looks as it did on the
    empty board (within ``empty_distance``) is empty, with the counter's probability of an empty
    point or, if higher, one that falls from 1 to ``near_floor`` as the distance grows; one still
    within ``ambiguous_distance`` whose counter gives an empty point at least ``doubtful_empty``
    reads empty too, as sure as such readings were right on the tuning sets (`SHADED_EMPTY`).
    What such a strip is not sure of is left to the counts the counter saw there, shared as it
    shared them (each row still sums to one): a lone checker judged away so can be read again
    when the game's totals miss it (`within_checkers`), and the share of the readings they allow
    counts it (`share_within`)."""
    count_p = count_p.copy()

    def judged_empty(rows: np.ndarray, empty_p: np.ndarray) -> None:
        occupied = count_p[rows, 1:]
        share = occupied / np.maximum(occupied.sum(axis=1, keepdims=True), 1e-12)
        count_p[rows, 0] = empty_p
        count_p[rows, 1:] = share * (1.0 - empty_p)[:, None]

    near = distance < empty_distance
    judged_empty(near, np.maximum(count_p[near, 0], 1.0 - (1.0 - near_floor) * distance[near] / empty_distance))
    # still close to the empty board, and the counter not sure there is anything: empty
    top = count_p[:, 1:].max(axis=1)
    shaded = ~near & (distance < ambiguous_distance) & (count_p[:, 0] >= doubtful_empty) & (top > count_p[:, 0])
    judged_empty(shaded, np.full(int(shaded.sum()), shaded_empty))
    return count_p


def stack_colours(strips: np.ndarray, counts: np.ndarray, checker_rows: float) -> dict[int, np.ndarray]:
    """The colour of each occupied strip's stack: the median CIELAB (L*, a*, b*) of the middle
    third of the strip across, from the base to the top of the stack's first row (at most five
    checkers of ``checker_rows`` pixels each).  ``strips`` (N, H, W, 3) BGR, as cut (or as
    `match_colour` gives them); ``counts`` (N,)."""
    _, height, width = strips.shape[:3]
    left, right = width // 3, width - width // 3
    colours: dict[int, np.ndarray] = {}
    for i in np.flatnonzero(counts):
        top = min(height - 2, max(0, int(round(height - min(int(counts[i]), 5) * checker_rows))))
        patch = np.clip(strips[i, top:height - 1, left:right].astype(np.float32) / 255.0, 0.0, 1.0)
        lab = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2Lab).reshape(-1, 3)
        colours[int(i)] = np.median(lab, axis=0)
    return colours


def stack_hues(strips: np.ndarray, counts: np.ndarray, checker_rows: float) -> dict[int, np.ndarray]:
    """The hue of each occupied strip's stack: the CIELAB (a*, b*) of its `stack_colours`.  Hue,
    not lightness: a light stack stays light and a dark one dark when the lamp moves, and a dark
    checker's white inlay makes it no lighter in hue."""
    return {i: lab[1:] for i, lab in stack_colours(strips, counts, checker_rows).items()}


def differ_in_hue(sides: tuple[np.ndarray, np.ndarray], apart: float = HUE_APART) -> bool:
    """Whether two sides' hues (light, dark; CIELAB a*, b*) lie at least ``apart`` apart."""
    return bool(np.linalg.norm(np.subtract(sides[0], sides[1])) >= apart)


def other_side_by_hue(hues: dict[int, np.ndarray], colours: np.ndarray,
                      sides: tuple[np.ndarray, np.ndarray] | None = None, apart: float = HUE_APART,
                      closer: float = HUE_CLOSER) -> list[int]:
    """The strips whose stack is the other side's by its hue.  Each side's hue: ``sides`` (light,
    dark), as the start position shows them (`StartColours.hues`, or the classical calibration's
    `vision.calibration.ColourModel.hues`), or without them the median hue of the stacks read as
    that side's in this frame.  When the two lie at least ``apart`` apart, each stack whose hue is
    ``closer`` times nearer the other side's than its own side's is turned: each side's checkers
    are one colour over the whole board, however the counter judged one stack of them.  On a board whose sides differ only in lightness
    nothing is.  ``hues`` by `stack_hues`; ``colours`` (N,): 0 light, 1 dark, as read."""
    if sides is None:
        read_as = [[i for i in hues if colours[i] == side] for side in (0, 1)]
        if not read_as[0] or not read_as[1]:
            return []
        sides = (np.median(np.array([hues[i] for i in read_as[0]]), axis=0),
                 np.median(np.array([hues[i] for i in read_as[1]]), axis=0))
    if not differ_in_hue(sides, apart):
        return []
    return [i for i, hue in hues.items()
            if np.linalg.norm(hue - sides[1 - colours[i]]) < closer * np.linalg.norm(hue - sides[colours[i]])]


def within_checkers(count_p: np.ndarray, colour_p: np.ndarray, most: int = CHECKERS,
                    totals: CheckerTotals | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The counts and colours (0 light, 1 dark) of all strips read together: each strip's likeliest
    count and colour when neither side then has more than ``most`` checkers on the board and bar
    (and, given the game's ``totals``, each side's total falls within them), else the readings of
    all strips that keep both sides so and are likeliest together.  A reading's likelihood is the
    product over strips of the count's probability times, for an occupied strip, its colour's
    against the likelier colour's (so that doubt about a stack's colour never makes a strip read
    empty).  ``count_p`` is (N, K) and ``colour_p`` (N, 2)."""
    counts, colours = count_p.argmax(axis=1), colour_p.argmax(axis=1)
    # allowed[l, d]: whether l light and d dark checkers on the board and bar may be
    allowed = np.ones((most + 1, most + 1), bool)
    if totals is not None:
        allowed[:] = False
        (light_fewest, light_most), (dark_fewest, dark_most) = totals
        allowed[max(0, light_fewest):light_most + 1, max(0, dark_fewest):dark_most + 1] = True
        if not allowed.any():
            raise ValueError(f"the totals {totals} leave no reading of at most {most} checkers a side")
    light_total, dark_total = (int(counts[colours == side].sum()) for side in (0, 1))
    if light_total <= most and dark_total <= most and allowed[light_total, dark_total]:
        return counts, colours
    log_count = np.log(np.maximum(count_p, 1e-12))
    log_colour = np.log(np.maximum(colour_p, 1e-12))
    log_colour -= log_colour.max(axis=1, keepdims=True)
    top = min(count_p.shape[1] - 1, most)
    # before[t, n]: the total before a strip of n checkers that leaves t (negative: impossible)
    before = np.arange(most + 1)[:, None] - np.arange(top + 1)[None, :]
    possible, before = before >= 0, np.maximum(before, 0)
    # best[l, d]: the best log likelihood of the strips so far holding l light and d dark checkers;
    # choice[i, l, d]: strip i's (count, colour) on that best path
    best = np.full((most + 1, most + 1), -np.inf)
    best[0, 0] = 0.0
    choice = np.zeros((len(count_p), most + 1, most + 1, 2), dtype=np.int64)
    for i in range(len(count_p)):
        light = log_count[i, :top + 1] + log_colour[i, 0]
        dark = log_count[i, :top + 1] + log_colour[i, 1]
        light[0], dark[0] = log_count[i, 0], -np.inf  # an empty strip once, with no colour
        as_light = np.where(possible[:, :, None], best[before], -np.inf) + light[None, :, None]  # [l, n, d]
        as_dark = np.where(possible[None, :, :], best[:, before], -np.inf) + dark[None, None, :]  # [l, d, n]
        light_best, dark_best = as_light.max(axis=1), as_dark.max(axis=2)
        side = dark_best > light_best
        best = np.where(side, dark_best, light_best)
        choice[i, ..., 0] = np.where(side, as_dark.argmax(axis=2), as_light.argmax(axis=1))
        choice[i, ..., 1] = side
    light_total, dark_total = np.unravel_index(int(np.argmax(np.where(allowed, best, -np.inf))), best.shape)
    for i in reversed(range(len(count_p))):
        counts[i], colours[i] = choice[i, light_total, dark_total]
        if colours[i] == 0:
            light_total -= counts[i]
        else:
            dark_total -= counts[i]
    return counts, colours


def share_within(count_p: np.ndarray, colour_p: np.ndarray, counts: Sequence[int] | np.ndarray,
                 colours: Sequence[int] | np.ndarray, totals: CheckerTotals, most: int = CHECKERS) -> float:
    """The probability of one reading of the strips (``counts``, and ``colours`` 0 light / 1 dark
    where occupied) among all the readings whose totals fall within ``totals`` (and at most
    ``most`` checkers a side): the product over strips of the count's probability times, when
    occupied, its colour's, against the sum of those products over every such reading (summed by
    a programme like `within_checkers`', adding where it takes the best).  That measure takes the
    colour's probability itself where `within_checkers` weighs it against the likelier colour's, so
    the reading it chose need not be the likeliest by this one (the share is then the lower: a
    cautious figure).  0.0 for a reading the totals do not allow, or for probabilities that are not
    numbers.  ``count_p`` is (N, K) and ``colour_p`` (N, 2)."""
    top = min(count_p.shape[1] - 1, most)
    count = np.asarray(count_p, np.float64)[:, :top + 1]
    colour = np.asarray(colour_p, np.float64)
    sides = [sum(int(n) for n, c in zip(counts, colours, strict=True) if n and int(c) == side) for side in (0, 1)]
    if not all(0 <= side <= most for side in sides) or not totals.allows(*sides) or any(int(n) > top for n in counts):
        return 0.0
    if not (np.isfinite(count).all() and np.isfinite(colour).all()):
        return 0.0
    chosen = _log_probability(count_p, colour_p, counts, colours)
    # mass[l, d]: the summed probability of the strips so far holding l light and d dark checkers,
    # kept scaled to a sum of one (the scale's logarithm in `scale`)
    mass = np.zeros((most + 1, most + 1))
    mass[0, 0], scale = 1.0, 0.0
    shift = np.arange(most + 1)[:, None] - np.arange(most + 1)[None, :]  # shift[to, from]
    inside = (shift > 0) & (shift <= top)
    stacks = count[:, np.clip(shift, 0, top)] * inside  # stacks[i, to, from]: strip i's count to-from
    for i in range(len(count)):
        mass = count[i, 0] * mass + colour[i, 0] * (stacks[i] @ mass) + colour[i, 1] * (mass @ stacks[i].T)
        total = float(mass.sum())
        if total <= 0.0:
            return 0.0
        mass, scale = mass / total, scale + np.log(total)
    (light_fewest, light_most), (dark_fewest, dark_most) = totals
    allowed = float(mass[max(0, light_fewest):light_most + 1, max(0, dark_fewest):dark_most + 1].sum())
    if allowed <= 0.0:
        return 0.0
    return float(min(1.0, np.exp(chosen - scale - np.log(allowed))))


def _trusted(share: float, odds: float) -> bool:
    """`PointCounts.totals_trusted` of a reading's share and refit odds."""
    return share >= TOTALS_SURE and odds >= REFIT_ODDS


#: a reading of the strips: (counts, colours), as `within_checkers` gives it
Reading = tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray]


def refit_odds(count_p: np.ndarray, colour_p: np.ndarray, refit: Reading, alone: Reading) -> float:
    """How likely the counter finds a reading ``refit`` (counts, colours) against its reading
    ``alone``: the ratio of their probabilities (as `share_within` takes them), at most 1 (0.0
    for probabilities that are not numbers)."""
    ratio = _log_probability(count_p, colour_p, *refit) - _log_probability(count_p, colour_p, *alone)
    return float(np.exp(min(0.0, ratio))) if np.isfinite(ratio) else 0.0


def _log_probability(count_p: np.ndarray, colour_p: np.ndarray, counts: Sequence[int] | np.ndarray,
                     colours: Sequence[int] | np.ndarray) -> float:
    """The log probability of a reading of the strips: each count's, times its colour's where occupied."""
    return float(sum(np.log(max(float(count_p[i, n]), 1e-300))
                     + (np.log(max(float(colour_p[i, colours[i]]), 1e-300)) if n else 0.0)
                     for i, n in enumerate(counts)))


def read_strips(image: np.ndarray, geometry: BoardGeometry, model: str | Path = MODEL_PATH,
                empty: EmptyBoard | None = None,
                bar_model: str | Path | None = BAR_MODEL_PATH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each strip of a camera frame (P1..P24, the bar's near and far halves) as the counter reads
    it, before the board is read as a whole: the strips as read ((N, H, W, 3), float32 BGR), the
    (N, 16) probabilities of their counts and the (N, 2) of their colours.  With ``empty`` (the
    calibration's empty board), each strip is read beside the empty board's and judged against it
    (`beside_empty`), its colours first brought to the empty board's (`match_colour`).  A strip the
    counter is not sure of is read mirrored too, the two readings averaged."""
    strips, count_p, colour_p, _, _, _ = _read_strips(image, geometry, BoardCounter(model, bar_model), empty, bar_model)
    return strips, count_p, colour_p


def _read_strips(image: np.ndarray, geometry: BoardGeometry, counter: BoardCounter, empty: EmptyBoard | None,
                 bar_model: str | Path | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None,
                                                       np.ndarray | None, np.ndarray | None]:
    """`read_strips` by ``counter`` (whose bar reader is ``bar_model``), each strip's feature
    distance to the empty board's, the colour gain the strips were brought to the empty board's
    colours by (`colour_gain`) and which strips were judged empty against the counter (`_read_cut`;
    all three None without it)."""
    if empty is not None and empty.bar_model != bar_model:
        raise ValueError(f"the empty board was read with bar reader {empty.bar_model}, not {bar_model}")
    strips = board_strips(image, geometry)
    gain = None
    if empty is not None:
        gain = colour_gain(strips, empty.strips)
        strips = strips.astype(np.float32) * gain
    count_p, colour_p, distance, judged_away = _read_cut(strips, np.arange(len(strips)), counter, empty)
    return np.asarray(strips, np.float32), count_p, colour_p, distance, gain, judged_away


def _read_cut(strips: np.ndarray, index: np.ndarray, counter: BoardCounter, empty: EmptyBoard | None,
              mirror: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Strips cut (and brought to the empty board's colours) as the board's strips ``index`` (0..25,
    as in `board_strips`), read by ``counter`` as `read_strips` reads them: the counts' and
    colours' probabilities, the feature distances to the empty board's same strips and which
    strips `beside_empty` judged empty against the counter (it gave an empty point less than
    `JUDGED_AWAY`; both None without it).  ``mirror=False``: no strip is read mirrored."""
    upright = standardise(strips)
    references = np.zeros_like(upright) if empty is None else empty.references[index]
    count_p, colour_p, features = counter.read_standardised(upright, references, index)
    distance = None if empty is None else empty.distances(features, index)
    # a strip the counter is not sure of, and not simply the empty board's, read mirrored too (a
    # stack's mirror is a stack of the same count, as in training): the two readings averaged
    unsure = (count_p.max(axis=1) < MIRROR_BELOW) & mirror
    if distance is not None:
        unsure &= distance >= EMPTY_DISTANCE
    if unsure.any():
        again, again_colour, _ = counter.read_standardised(
            np.ascontiguousarray(upright[unsure][..., ::-1]), np.ascontiguousarray(references[unsure][..., ::-1]),
            index[unsure])
        count_p[unsure] = (count_p[unsure] + again) / 2
        colour_p[unsure] = (colour_p[unsure] + again_colour) / 2
    judged_away = None
    if distance is not None:
        counted_empty = count_p[:, 0].copy()
        count_p = beside_empty(count_p, distance)
        judged_away = (counted_empty < JUDGED_AWAY) & (count_p[:, 0] > counted_empty) & (count_p.argmax(axis=1) == 0)
    return count_p, colour_p, distance, judged_away


@dataclass(frozen=True)
class StartColours:
    """What the photo of the start position, a labelled photo of this board under its own light,
    teaches about its checkers: each side's colour (the mean CIELAB L*, a*, b* of its stacks there,
    as `stack_colours` measures them; light is the lighter side), how much a side's stacks differ
    in colour among themselves (``spread``: their covariance, pooled over the two sides, at least
    `COLOUR_SPREAD` along each axis), and whether the counter told the two sides apart on it.  Where
    it did not (a pair of colours it never saw together: often both sides read as one), each stack
    is the side whose colour its own is nearer, measured against that spread (`colour_p`: lightness
    counts for little on a board whose stacks' lightness the lamp varies, for much on one where it
    tells the sides apart)."""

    light: np.ndarray
    dark: np.ndarray
    spread: np.ndarray
    counter_trusted: bool

    @property
    def hues(self) -> tuple[np.ndarray, np.ndarray]:
        """The light and dark sides' hues (CIELAB a*, b*): what `other_side_by_hue` judges a
        stack by where the counter is trusted."""
        return self.light[1:], self.dark[1:]

    @cached_property
    def _toward_dark(self) -> tuple[np.ndarray, np.ndarray]:
        """The middle between the two sides' colours and the direction (Fisher's linear
        discriminant) along which a colour's distance from it, over the dark side's, tells how far
        toward the dark side it lies."""
        middle = (self.light + self.dark) / 2
        direction = np.linalg.solve(self.spread, self.dark - self.light)
        return middle, direction / max(float((self.dark - middle) @ direction), 1e-9)

    def colour_p(self, colour: np.ndarray) -> np.ndarray:
        """(light, dark) probabilities of a stack of CIELAB ``colour``: the side it is nearer
        (Fisher's linear discriminant between the two), `BY_COLOUR_SURE` sure, less as its colour
        nears the middle between the two (within `NEAR_MIDDLE` of the way to either side's)."""
        middle, direction = self._toward_dark
        toward_dark = float((colour - middle) @ direction)
        sure = 0.5 + (BY_COLOUR_SURE - 0.5) * min(1.0, abs(toward_dark) / NEAR_MIDDLE)
        return np.array([1.0 - sure, sure]) if toward_dark > 0 else np.array([sure, 1.0 - sure])


def start_colours(photo: np.ndarray, geometry: BoardGeometry, variant: str, empty: EmptyBoard,
                  model: str | Path = MODEL_PATH, bar_model: str | Path | None = BAR_MODEL_PATH,
                  misreads: float = MISREAD_SHARE) -> StartColours | None:
    """The `StartColours` of a photo of ``variant``'s start position, read beside the empty board
    (the counter reads the start's stacks as it will read every frame's: the reader builds this
    only with an empty-board photo).  The start position is known but not which way round it
    stands: of the board's orientations, the one whose stacks lie where the counter sees stacks.
    None when the photo does not show the start position (its stacks and the counter's differ on
    more points than a quarter of its stacks: two in backgammon, none in nardy), or when ``variant``
    is no game the rules know (nothing to compare the photo with)."""
    from rules.errors import RulesError
    from vision.observation import start_layouts

    try:
        layouts = start_layouts(variant)
    except RulesError:
        return None
    strips, count_p, colour_p = read_strips(photo, geometry, model, empty, bar_model)
    occupied = count_p[:BAR_STRIPS].argmax(axis=1) > 0

    def unlike(points: list[tuple[int, int]]) -> int:
        return sum((a + b > 0) != seen for (a, b), seen in zip(points, occupied, strict=True))

    layout = min(layouts.values(), key=unlike)
    counts = np.array([a + b for a, b in layout])
    if unlike(layout) > np.count_nonzero(counts) // 4:
        return None
    side = np.array([0 if a else 1 for a, _ in layout])
    colours = stack_colours(strips[:BAR_STRIPS], counts, checker_rows(geometry, strips.shape[1]))
    stacks = sorted(colours)
    groups = [np.array([colours[i] for i in stacks if side[i] == s], np.float64) for s in (0, 1)]
    if groups[0][:, 0].mean() < groups[1][:, 0].mean():  # the lighter side is light
        side, groups = 1 - side, groups[::-1]
    means = [group.mean(axis=0) for group in groups]
    deviations = np.concatenate([group - mean for group, mean in zip(groups, means, strict=True)])
    spread = deviations.T @ deviations / max(len(deviations) - 2, 1) + COLOUR_SPREAD * np.eye(3)
    misread = sum(int(colour_p[i].argmax()) != side[i] for i in stacks)
    return StartColours(means[0], means[1], spread, counter_trusted=bool(misread < misreads * len(stacks)))


def count_points(image: np.ndarray, geometry: BoardGeometry, model: str | Path = MODEL_PATH,
                 empty: EmptyBoard | None = None, bar_model: str | Path | None = BAR_MODEL_PATH,
                 sides: tuple[np.ndarray, np.ndarray] | None = None, hue_apart: float = HUE_APART,
                 start: StartColours | None = None, looks: Sequence[BoardGeometry] = (),
                 totals: CheckerTotals | None = None) -> PointCounts:
    """Checkers on each of the 24 points and on the bar of a camera frame, each strip read by
    `read_strips`.  A probability is that of the count times, when occupied, that of the colour.
    The bar is read as its two halves (each a stack from the middle), whatever colour each holds,
    by ``bar_model`` (None: by the point counter; as ``empty`` was built).  Where the counter did
    not tell the sides apart on the start position (``start``, `StartColours`), each stack is the
    side whose colour is nearer its own.  Else, on a board whose sides differ in hue (by
    ``hue_apart``), a stack of the other side's hue is the other side's (`other_side_by_hue`;
    the sides' hues as ``start`` shows them, else ``sides``, else this frame's).  Neither
    side has more than 15 checkers, nor, given the game's ``totals``, more or fewer than they
    allow: a reading that does not is read again as a whole (`within_checkers`; a strip read so
    otherwise than the counter read it is as sure as the counter was of that reading, unless the
    totals leave no doubt (below), and the places refitted to the totals are
    `PointCounts.refitted`).  A reading the totals leave little
    doubt about (`PointCounts.totals_trusted`: holding at least `TOTALS_SURE` of the probability
    of all the readings they allow, and, refitted, at least `REFIT_ODDS` as likely to the counter
    as its own reading) is at least that share sure at every place (but a place another look read
    otherwise, below); a refitted one they leave in doubt, the reader doubts.  The odds guard a refit
    only: a misreading that agrees with a record gone wrong is trusted as any reading that fits
    (the referee gives the totals only while the board agrees with the record).

    ``looks``: the board cut again at each of these (the corners a click off, `LOOK_NUDGE`): of the
    strips read below `LOOK_BELOW` and not simply the empty board's, the `LOOK_AT` least sure are
    read again so, upright only (brought to the empty board's colours as the whole board was), and
    the board judged again as above; a place among them that a look reads otherwise is
    `PointCounts.unsteady`, at most `UNSTEADY` sure (a reading that a click changes was not sure).
    The reading itself is the first look's."""
    counter = BoardCounter(model, bar_model)
    strips, count_p, colour_p, distance, gain, judged_away = _read_strips(image, geometry, counter, empty, bar_model)
    rows = checker_rows(geometry, strips.shape[1])
    measured: dict[tuple[int, int], np.ndarray] = {}
    counts, colours, probabilities, refitted, share, odds = _judge_board(strips, count_p, colour_p, rows, sides,
                                                                         hue_apart, start, measured, totals)
    unsteady: dict[int, tuple[int, int]] = {}
    # the strips worth another look: the `LOOK_AT` least sure read below LOOK_BELOW, and not
    # simply the empty board's
    sure = np.array(probabilities)
    worth = sure < LOOK_BELOW
    if distance is not None:
        worth &= distance >= EMPTY_DISTANCE
    only = np.sort(np.flatnonzero(worth)[np.argsort(sure[worth], kind="stable")[:LOOK_AT]])
    places = {min(int(i), BAR_STRIPS) for i in only}  # 24: the bar, either half
    strips_cut = set(only.tolist())
    first = _places(_point_counts(counts, colours, probabilities))
    if looks and len(only):
        # every look's strips cut, then read together (upright only: a look checks, it does not read)
        cut = np.concatenate([board_strips(image, look, only=only) for look in looks]).astype(np.float32)
        if gain is not None:
            cut *= gain
        cut_count, cut_colour, _, _ = _read_cut(cut, np.tile(only, len(looks)), counter, empty, mirror=False)
        known = {key: lab for key, lab in measured.items() if key[0] not in strips_cut}
        for n in range(len(looks)):
            again, again_count, again_colour = strips.copy(), count_p.copy(), colour_p.copy()
            mine = slice(n * len(only), (n + 1) * len(only))
            again[only], again_count[only], again_colour[only] = cut[mine], cut_count[mine], cut_colour[mine]
            seen = _places(_point_counts(*_judge_board(again, again_count, again_colour, rows, sides, hue_apart,
                                                       start, dict(known), totals, measure=False)[:3]))
            for i in sorted(places):
                if seen[i] != first[i]:
                    unsteady.setdefault(i, seen[i])
    if _trusted(share, odds):  # a reading the game's totals leave little doubt about: every place as sure
        probabilities = [max(p, share) for p in probabilities]
    for i in unsteady:
        for strip in (i,) if i < BAR_STRIPS else (BAR_STRIPS, BAR_STRIPS + 1):
            probabilities[strip] = min(probabilities[strip], UNSTEADY)
    # each place read otherwise to fit the game's totals, as it read without them
    alone_counts, alone_colours = list(counts), list(colours)
    for i, (n, c) in refitted.items():
        alone_counts[i], alone_colours[i] = n, c if n else None
    alone = _places(_point_counts(alone_counts, alone_colours, probabilities))
    refitted_places = sorted({min(i, BAR_STRIPS) for i in refitted})
    away = [] if judged_away is None else [int(i) for i in np.flatnonzero(judged_away[:BAR_STRIPS]) if counts[i] == 0]
    return replace(_point_counts(counts, colours, probabilities), unsteady=sorted(unsteady.items()),
                   refitted=[(i, alone[i]) for i in refitted_places], totals_share=share,
                   refit_odds=odds, judged_away=away)


def _point_counts(counts: list[int], colours: list[int | None], probabilities: list[float]) -> PointCounts:
    """The `PointCounts` of every strip's count, colour and probability (P1..P24, the bar's halves)."""
    near, far = BAR_STRIPS, BAR_STRIPS + 1
    return PointCounts(counts=counts[:near], probabilities=probabilities[:near], colours=colours[:near],
                       bar_halves=((counts[near], colours[near]), (counts[far], colours[far])),
                       bar_probability=min(probabilities[near:]))


def _judge_board(strips: np.ndarray, count_p: np.ndarray, colour_p: np.ndarray, rows: float,
                 sides: tuple[np.ndarray, np.ndarray] | None, hue_apart: float, start: StartColours | None,
                 measured: dict[tuple[int, int], np.ndarray] | None = None, totals: CheckerTotals | None = None,
                 measure: bool = True,
                 ) -> tuple[list[int], list[int | None], list[float], dict[int, tuple[int, int]], float, float]:
    """`count_points`' judgement of the strips as read (``count_p``, ``colour_p``): each strip's
    count, colour (None when empty) and probability.  ``measured``: the stacks' colours already
    measured, by (strip, count), which it adds to (another look at the board measures again only
    the strips it cut anew); ``totals``: the game's (`within_checkers`), then the strips
    read otherwise to fit them, each with its (count, colour) without them, the reading's share
    of all the readings the totals allow (`share_within`; 0.0 without them) and, refitted, its
    odds against the reading without them (`refit_odds`; else 1.0).  ``measure=False``: neither
    share nor odds is measured (0.0 and 1.0; another look compares only what it reads)."""
    colour_p = colour_p.copy()
    read_counts = count_p.argmax(axis=1)
    measured = {} if measured is None else measured
    anew = read_counts * np.array([(i, int(n)) not in measured for i, n in enumerate(read_counts)])
    measured.update({(i, int(read_counts[i])): lab for i, lab in stack_colours(strips, anew, rows).items()})
    labs = {int(i): measured[int(i), int(read_counts[i])] for i in np.flatnonzero(read_counts)}
    if start is not None and not start.counter_trusted:
        for i, colour in labs.items():
            colour_p[i] = start.colour_p(colour)
    else:
        # a stack whose hue is the other side's is the other side's (with sides of one hue,
        # nothing to look at)
        sides = start.hues if start is not None else sides
        if sides is None or differ_in_hue(sides, hue_apart):
            colours_read = colour_p.argmax(axis=1)
            hues = {i: lab[1:] for i, lab in labs.items()}
            for i in other_side_by_hue(hues, colours_read, sides, apart=hue_apart):
                colour_p[i, colours_read[i]], colour_p[i, 1 - colours_read[i]] = 1.0 - HUE_TURNED, HUE_TURNED
    # a side has at most 15 checkers: a reading with more is read again as a whole; and, given the
    # game's totals, one that does not fit them (the strips read otherwise so are refitted)
    best_counts, best_colours = within_checkers(count_p, colour_p)
    alone = [(int(n), int(c)) if n else (0, 0) for n, c in zip(best_counts, best_colours, strict=True)]
    refitted: dict[int, tuple[int, int]] = {}
    share, odds = 0.0, 1.0
    if totals is not None:
        if not totals.allows(*(sum(n for n, c in alone if c == side) for side in (0, 1))):
            alone_reading = (best_counts, best_colours)
            best_counts, best_colours = within_checkers(count_p, colour_p, totals=totals)
            refitted = {i: alone[i] for i, (n, c) in enumerate(zip(best_counts, best_colours, strict=True))
                        if alone[i] != ((int(n), int(c)) if n else (0, 0))}
            if measure:
                odds = refit_odds(count_p, colour_p, (best_counts, best_colours), alone_reading)
        if measure:
            share = share_within(count_p, colour_p, best_counts, best_colours, totals)
    counts = [int(n) for n in best_counts]
    colours: list[int | None] = [int(c) if n else None for n, c in zip(counts, best_colours, strict=True)]
    probabilities = [float(count_p[i, n]) * (float(colour_p[i, c]) if c is not None else 1.0)
                     for i, (n, c) in enumerate(zip(counts, colours, strict=True))]
    return counts, colours, probabilities, refitted, share, odds


def _places(read: PointCounts) -> list[tuple[int, int]]:
    """Each point's (light, dark) and, last, the bar's (its two halves together)."""
    return [*read.pairs, read.bar]
