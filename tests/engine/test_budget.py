"""A decision's deadline: checked before each layer of a model, only inside its decision."""

from __future__ import annotations

import time

import pytest
import torch

from shadowswitch.engines.local.runtime import budget


class Slow(torch.nn.Module):
    """Layers of 20 ms each, counted."""

    def __init__(self, layers: int = 10) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Identity() for _ in range(layers))
        self.ran = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            time.sleep(0.02)
            self.ran += 1
            x = layer(x)
        return x


def test_a_pass_stops_at_the_deadline_within_one_layer() -> None:
    model = Slow()
    budget.interruptible(model)
    budget.interruptible(model)  # once per model, however many wrappers load it
    with budget.bounded(budget.Deadline(50)), pytest.raises(budget.OverBudget):
        model(torch.zeros(1))
    assert 2 <= model.ran <= 4  # 50 ms of 20 ms layers, and the one under way
    assert all(len(layer._forward_pre_hooks) == 1 for layer in model.layers)


def test_outside_a_decision_nothing_is_checked() -> None:
    model = Slow()
    budget.interruptible(model)
    with budget.bounded(budget.Deadline(1)):
        pass  # a decision that ended: its deadline no longer holds
    model(torch.zeros(1))
    assert model.ran == 10


def test_the_deadline_passes_by_the_clock() -> None:
    now = [100.0]
    deadline = budget.Deadline(250, clock=lambda: now[0])
    deadline.check()
    now[0] += 0.25
    deadline.check()  # at the deadline, not past it
    now[0] += 0.001
    with pytest.raises(budget.OverBudget):
        deadline.check()
