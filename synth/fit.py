"""The training loop shared by the learned parts' trainers (synth.train_checkers, train_gate,
train_dice): AdamW with a one-cycle schedule over shuffled batches, one history entry per epoch.
Development only (PyTorch)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn as nn

__all__ = ["fit"]


def fit(model: nn.Module, count: int, epochs: int, batch: int, rng: np.random.Generator,
        loss_of: Callable[[np.ndarray], torch.Tensor], score: Callable[[], dict[str, float]] | None = None,
        loss_key: str = "loss", digits: int = 4, max_lr: float = 3e-3) -> list[dict[str, float]]:
    """Train ``model`` on ``count`` items: each batch's loss is ``loss_of(indices)``; after each
    epoch ``score()`` (validation figures) joins the epoch's entry, which is printed as JSON.
    ``max_lr``: the one-cycle schedule's peak (lower to fine-tune a trained model)."""
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((count + batch - 1) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=steps)
    history = []
    for epoch in range(epochs):
        model.train()
        t0, total = time.time(), 0.0
        order = rng.permutation(count)
        for i in range(0, len(order), batch):
            pick = order[i:i + batch]
            loss = loss_of(pick)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(pick)
        entry: dict[str, float] = {"epoch": epoch + 1, loss_key: round(total / len(order), digits),
                                   "seconds": round(time.time() - t0, 1)}
        if score is not None:
            entry.update(score())
        history.append(entry)
        print(json.dumps(entry), flush=True)
    return history
