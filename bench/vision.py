"""Vision benchmark: per-frame gate and full read of settled 1280x720 frames, one thread.

Renders a small seeded dataset (or uses ``--dataset DIR``), calibrates from its references, then
times ``Gate.update`` and ``Reader.read`` on every frame, as the referee runs them (the read is
given the gate's hand verdict on the same frame, so the hand test is not timed twice), and
prints medians per stage next to the budgets (read 40 ms, gate 3 ms on the development machine;
a Pi 4 core is ~3-5x slower).  ``--nets`` names the engine that runs the learned readers' models
(`vision.nets`: onnxruntime, cv2); given twice, both are timed in the same run, pass by pass in turn,
and the ratio of their read medians printed.  ONNX Runtime runs a model's 8-bit copy where there is
one (the checker counter's, `vision.nets.QUANTISED`); ``--float`` times it on the float models too,
pass by pass in turn, and prints that ratio.  ``--game-totals``: each frame read knowing the game's
checker totals, as the referee reads (`vision.evaluate.game_totals`, the side on roll drawn per
frame, seeded).

    .venv/bin/python bench/vision.py [--frames 40] [--seed 2024] [--dataset DIR] [--no-dice]
        [--checkers classical|learned] [--hands classical|learned] [--dice classical|learned]
        [--nets onnxruntime|cv2 ...] [--float] [--game-totals]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.nets as nets  # noqa: E402
from vision.config import VisionConfig  # noqa: E402
from vision.dataset import calibration_for, load_dataset  # noqa: E402
from vision.evaluate import game_totals, light_on_roll  # noqa: E402
from vision.pipeline import Reader  # noqa: E402
from vision.render import render_dataset  # noqa: E402

READ_BUDGET_MS = 40.0
GATE_BUDGET_MS = 3.0


def _named(way: tuple[str, bool]) -> str:
    """An engine and whether it runs the 8-bit copies, as the report names it."""
    engine, quantised = way
    return engine if quantised or engine != "onnxruntime" else f"{engine} (float models)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--dataset", default=None)
    parser.add_argument("--no-dice", action="store_true", help="checkers only (vision.dice not timed)")
    parser.add_argument("--repeat", type=int, default=2, help="passes over the frames")
    parser.add_argument("--checkers", choices=["classical", "learned"], default="classical",
                        help="learned: the CNN counts the points (its stage is 'learned')")
    parser.add_argument("--hands", choices=["classical", "learned"], default="classical",
                        help="learned: the gate's hand test is the CNN of vision/models/occluder.onnx")
    parser.add_argument("--dice", choices=["classical", "learned"], default="classical",
                        help="learned: the dice are read by the CNNs of vision/models/dice_*.onnx")
    parser.add_argument("--nets", action="append", choices=list(nets.ENGINES),
                        help="the engine of the learned models (default: the setting, $REFEREE_NETS); twice: both")
    parser.add_argument("--float", action="store_true",
                        help="also time ONNX Runtime on the float models (no 8-bit copies), pass by pass in turn")
    parser.add_argument("--game-totals", action="store_true",
                        help="read each frame knowing the game's checker totals, as the referee does")
    args = parser.parse_args()
    # each way the models are run: (engine, 8-bit copies where there are some)
    ways = [(engine, True) for engine in args.nets or [nets.ENGINE]]
    if args.float:
        if ("onnxruntime", True) not in ways:
            parser.error("--float compares with ONNX Runtime's 8-bit copies: add --nets onnxruntime")
        ways.append(("onnxruntime", False))
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.dataset) if args.dataset else render_dataset(Path(tmp) / "bench", args.frames, args.seed,
                                                                      occluded_rate=0.0)
        dataset = load_dataset(root)
        config = VisionConfig(use_dice=not args.no_dice, checker_reader=args.checkers, hand_test=args.hands,
                              dice_reader=args.dice)
        t0 = time.perf_counter()
        calib = calibration_for(dataset, config)
        calibrate_ms = (time.perf_counter() - t0) * 1000
        images = [dataset.image(name) for name in dataset.frames]
        totals = [game_totals(dataset.label(name), light) if args.game_totals else None
                  for name, light in zip(dataset.frames, light_on_roll(len(dataset.frames)), strict=True)]
    readers = {}
    for way in ways:
        nets.ENGINE, nets.QUANTISED = way
        readers[way] = Reader(calib, config)
    stages: dict[str, dict[str, list[float]]] = {way: {} for way in ways}
    gate_ms: dict[str, list[float]] = {way: [] for way in ways}
    read_ms: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(args.repeat):
        for way in ways:  # a pass of each in turn, so that both see the machine alike
            nets.ENGINE, nets.QUANTISED = way
            reader = readers[way]
            for i, image in enumerate(images):
                state = reader.gate.update(image, now=float(i))
                gate_ms[way].append(state.ms)
                t0 = time.perf_counter()
                # the gate's hand test is not repeated
                observation = reader.read(image, hand=state.hand, totals=totals[i])
                read_ms[way].append((time.perf_counter() - t0) * 1000)
                for name, ms in observation.timings.items():
                    stages[way].setdefault(name, []).append(ms)
    h, w = images[0].shape[:2]
    print(f"vision bench: {len(images)} frames x {args.repeat} at {w}x{h}, one OpenCV thread, "
          f"dice {'off' if args.no_dice else args.dice}{', read with the game totals' if args.game_totals else ''}")
    print(f"  calibration (once)      {calibrate_ms:8.1f} ms")
    for way in ways:
        read_med = statistics.median(read_ms[way])
        gate_med = statistics.median(gate_ms[way])
        if len(ways) > 1:
            print(f"models run by {_named(way)}:")
        print(f"  gate_ms_median          {gate_med:8.2f} ms   budget {GATE_BUDGET_MS:.0f}  ratio {gate_med / GATE_BUDGET_MS:.2f}")
        print(f"  read_ms_median          {read_med:8.2f} ms   budget {READ_BUDGET_MS:.0f}  ratio {read_med / READ_BUDGET_MS:.2f}")
        print(f"  read_ms_p95             {sorted(read_ms[way])[int(0.95 * (len(read_ms[way]) - 1))]:8.2f} ms")
        print("  stages (median ms):")
        for name, values in stages[way].items():
            if name != "total":
                print(f"    {name:20s} {statistics.median(values):8.2f}")
    if len(ways) > 1:
        first, *others = ways
        for other in others:
            print(f"read median, {_named(other)} / {_named(first)}: "
                  f"{statistics.median(read_ms[other]) / statistics.median(read_ms[first]):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
