# The README's two commands: `make demo` and `make test`.  Both set up everything a fresh
# Debian machine lacks (apt packages, the virtual environment) before they run.
SHELL := /bin/bash
PY    := .venv/bin/python
PIP   := .venv/bin/pip
SUDO  := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := gnubg chromium gcc-avr avr-libc arduino-mk arduino-core-avr mosquitto povray
PYTEST_ARGS ?=

.PHONY: all setup apt venv test lint typecheck pytest firmware demo bench clean train train-checkers train-gate train-dice

all: test

setup: apt venv

# Debian packages the tests drive for real: GNU Backgammon (the oracle), Chromium (browser
# tests), the AVR toolchain (firmware compile).  Installed only when one is missing.
apt:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing from Debian:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

.venv/stamp: pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[test]'
	touch $@

venv: .venv/stamp

lint: venv
	.venv/bin/ruff check .

typecheck: venv
	.venv/bin/mypy --strict rules recording

firmware: setup
	$(MAKE) -C hardware/firmware test PYTHON=$(abspath $(PY))

# The page's tests (browser ones included) run in their own process, which never imports OpenCV:
# in a process with OpenCV loaded, Playwright's first page load was seen to miss its live events
# under pytest's output capture (not explained yet).
# Two workers (pytest-xdist; PYTEST_WORKERS=0 runs in one process): the suite waits on browsers,
# brokers and referees as much as it computes.
PYTEST_WORKERS ?= 2
pytest: setup
	$(PY) -m pytest -n $(PYTEST_WORKERS) --ignore=tests/web_ui --ignore=tests/club/test_browser.py $(PYTEST_ARGS)
	$(PY) -m pytest -n $(PYTEST_WORKERS) tests/web_ui tests/club/test_browser.py $(PYTEST_ARGS)

test: setup lint typecheck firmware pytest

demo: setup
	.venv/bin/referee demo --headless

bench: setup
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf .venv build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# The learned checker counter (vision/models/checker_count.onnx): renders its training data
# (2-D renderer seeds 20001-20006, 150 frames each; the 3-D yardstick's tuning designs only:
# seed 1901 (40 frames, and 20 under the calibration light), 2601 (640x360, half with hands),
# 2701 and 2702 (24 each) and 3301 (60)), cuts the point strips with their empty-board strips
# and trains, in its own environment (PyTorch is a development tool, never a dependency of
# the appliance).  Hours on 2 cores; the data are cached in $(TRAIN_CACHE), outside the repository.
TRAIN_CACHE ?= $(HOME)/.cache/referee-train
TRAIN_PY    := .venv-train/bin/python
TUNING_DESIGNS = $$(.venv/bin/referee render3d --list-designs | awk -F'\t' '$$2 == "tuning" {print $$1}')

.venv-train/stamp:
	test -x $(TRAIN_PY) || python3 -m venv .venv-train
	.venv-train/bin/pip install -q torch==2.13.0 numpy opencv-python-headless onnx
	touch $@

train: train-checkers train-gate train-dice

train-checkers: setup .venv-train/stamp
	mkdir -p $(TRAIN_CACHE)/2d $(TRAIN_CACHE)/3d $(TRAIN_CACHE)/3d-same $(TRAIN_CACHE)/gate3d $(TRAIN_CACHE)/dice3d \
	  $(TRAIN_CACHE)/dice3d2 $(TRAIN_CACHE)/checkers3d $(TRAIN_CACHE)/strips
	for s in $$(seq 20001 20006); do test -d $(TRAIN_CACHE)/2d/s$$s || \
	  .venv/bin/referee render --dataset $(TRAIN_CACHE)/2d/s$$s --frames 150 --seed $$s >/dev/null; done
	for d in $(TUNING_DESIGNS); do \
	  test -d $(TRAIN_CACHE)/3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/3d/$$d --design $$d --frames 40 --seed 1901; \
	  test -d $(TRAIN_CACHE)/3d-same/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/3d-same/$$d --design $$d --frames 20 --seed 1901 --same-light; \
	  test -d $(TRAIN_CACHE)/gate3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/gate3d/$$d --design $$d --frames 40 --seed 2601 --size 640x360 --occluded-rate 0.5; \
	  test -d $(TRAIN_CACHE)/dice3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/dice3d/$$d --design $$d --frames 24 --seed 2701 --occluded-rate 0.05; \
	  test -d $(TRAIN_CACHE)/dice3d2/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/dice3d2/$$d --design $$d --frames 24 --seed 2702 --occluded-rate 0.05; \
	  test -d $(TRAIN_CACHE)/checkers3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/checkers3d/$$d --design $$d --frames 60 --seed 3301; \
	done
	$(PY) -m synth.checker_data $(TRAIN_CACHE)/2d/* --out $(TRAIN_CACHE)/strips/2d --jitter 0
	for k in 3d 3d-same gate3d dice3d dice3d2 checkers3d; do \
	  $(PY) -m synth.checker_data $(TRAIN_CACHE)/$$k/* --out $(TRAIN_CACHE)/strips/$$k --jitter 3; done
	$(TRAIN_PY) -m synth.train_checkers --train $(TRAIN_CACHE)/strips/*/*.npz \
	  --out vision/models/checker_count.onnx --epochs 6 --seed 0

# The learned hand test (vision/models/occluder.onnx): 2-D renderer seeds 21001-21004 (200 frames)
# and 21101-21140 (25 frames: many board looks), half of them with a hand; the 3-D yardstick's
# tuning designs at 640x360, 40 frames each at seed 2601, half with a hand.
train-gate: setup .venv-train/stamp
	mkdir -p $(TRAIN_CACHE)/gate2d $(TRAIN_CACHE)/gate3d $(TRAIN_CACHE)/views
	for s in $$(seq 21001 21004); do test -d $(TRAIN_CACHE)/gate2d/s$$s || .venv/bin/referee render \
	  --dataset $(TRAIN_CACHE)/gate2d/s$$s --frames 200 --seed $$s --occluded-rate 0.5 >/dev/null; done
	for s in $$(seq 21101 21140); do test -d $(TRAIN_CACHE)/gate2d/m$$s || .venv/bin/referee render \
	  --dataset $(TRAIN_CACHE)/gate2d/m$$s --frames 25 --seed $$s --occluded-rate 0.5 >/dev/null; done
	for d in $(TUNING_DESIGNS); do test -d $(TRAIN_CACHE)/gate3d/$$d || .venv/bin/referee render3d \
	  --dataset $(TRAIN_CACHE)/gate3d/$$d --design $$d --frames 40 --seed 2601 --size 640x360 --occluded-rate 0.5; done
	$(PY) -m synth.gate_data $(TRAIN_CACHE)/gate2d/* --out $(TRAIN_CACHE)/views/2d --jitter 0
	$(PY) -m synth.gate_data $(TRAIN_CACHE)/gate3d/* --out $(TRAIN_CACHE)/views/3d --jitter 6
	t3=$$(ls $(TRAIN_CACHE)/views/3d/*.npz); $(TRAIN_PY) -m synth.train_gate \
	  --train $(TRAIN_CACHE)/views/2d/*.npz $$t3 $$t3 --out vision/models/occluder.onnx --epochs 8 --seed 0

# The learned dice reader (vision/models/dice_find.onnx, dice_read.onnx): 2-D renderer seeds
# 22001-22005 (250 frames); the 3-D yardstick's tuning designs: seed 1901 (40 frames, as
# train-checkers renders them; and 20 more under the calibration light), seed 2601 at 640x360 (as
# train-gate renders them) and seed 2701 (24 frames).  Clear frames only; the finder's views twice
# (corners as calibrated and a click off) for the 3-D ones.
train-dice: setup .venv-train/stamp
	mkdir -p $(TRAIN_CACHE)/dice2d $(TRAIN_CACHE)/3d $(TRAIN_CACHE)/3d-same $(TRAIN_CACHE)/gate3d $(TRAIN_CACHE)/dice3d $(TRAIN_CACHE)/dicenpz
	for s in $$(seq 22001 22005); do test -d $(TRAIN_CACHE)/dice2d/s$$s || \
	  .venv/bin/referee render --dataset $(TRAIN_CACHE)/dice2d/s$$s --frames 250 --seed $$s >/dev/null; done
	for d in $(TUNING_DESIGNS); do \
	  test -d $(TRAIN_CACHE)/3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/3d/$$d --design $$d --frames 40 --seed 1901; \
	  test -d $(TRAIN_CACHE)/3d-same/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/3d-same/$$d --design $$d --frames 20 --seed 1901 --same-light; \
	  test -d $(TRAIN_CACHE)/gate3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/gate3d/$$d --design $$d --frames 40 --seed 2601 --size 640x360 --occluded-rate 0.5; \
	  test -d $(TRAIN_CACHE)/dice3d/$$d || .venv/bin/referee render3d --dataset $(TRAIN_CACHE)/dice3d/$$d --design $$d --frames 24 --seed 2701 --occluded-rate 0.05; \
	done
	$(PY) -m synth.dice_data $(TRAIN_CACHE)/dice2d/* --out $(TRAIN_CACHE)/dicenpz --jitter 0
	$(PY) -m synth.dice_data $(TRAIN_CACHE)/3d/* $(TRAIN_CACHE)/3d-same/* $(TRAIN_CACHE)/gate3d/* $(TRAIN_CACHE)/dice3d/* --out $(TRAIN_CACHE)/dicenpz --jitter 1
	$(TRAIN_PY) -m synth.train_dice --train $(TRAIN_CACHE)/dicenpz/*.npz --out vision/models --epochs 14 --read-epochs 24 --seed 0
