"""Torch losses and modules misused in a hand-written loop, repaired at the failing
expression (#25), each on a small real training script."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

pytest.importorskip("torch")

DATA = """\
import numpy as np
import torch
from torch import nn
from sklearn.datasets import load_breast_cancer

torch.manual_seed(0)
X, y = load_breast_cancer(return_X_y=True)
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
Xt, yt = torch.tensor(X), torch.tensor(y).unsqueeze(1)
model = nn.Sequential(nn.Linear(30, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
"""
CHECK = "acc = ((model(Xt) > 0).float() == yt).float().mean().item()\nassert acc > 0.9, acc\n"


def _loop(loss_line: str, setup: str = "loss_fn = nn.BCEWithLogitsLoss()\n") -> str:
    return DATA + setup + ("for epoch in range(40):\n    opt.zero_grad()\n"
                           f"    {loss_line}\n    opt.step()\n") + CHECK


def test_integer_targets_to_a_float_loss_are_made_float_at_the_loss():
    new, diagnosis = repaired_here(_loop("loss_fn(model(Xt), yt).backward()"),
                                   "float_targets")
    assert diagnosis.subclass == "loss_usage"
    assert "loss_fn(model(Xt), yt.float()).backward()" in new


def test_a_loss_class_given_the_tensors_is_instantiated_first():
    code = _loop("nn.BCEWithLogitsLoss(model(Xt), yt.float()).backward()", setup="")
    new, _ = repaired_here(code, "instantiate_loss")
    assert "nn.BCEWithLogitsLoss()(model(Xt), yt.float()).backward()" in new


def test_an_unreduced_loss_is_averaged_before_backward():
    code = _loop("loss = loss_fn(model(Xt), yt.float())\n    loss.backward()",
                 setup="loss_fn = nn.BCEWithLogitsLoss(reduction='none')\n")
    new, _ = repaired_here(code, "reduce_loss")
    assert "(loss).mean().backward()" in new


def test_raw_scores_to_bce_use_its_logits_twin():
    code = _loop("loss_fn(model(Xt), yt.float()).backward()", setup="loss_fn = nn.BCELoss()\n")
    new, diagnosis = repaired_here(code, "logits_loss")
    assert diagnosis.subclass == "loss_target_mismatch"
    assert "loss_fn = nn.BCEWithLogitsLoss()" in new


def test_a_counted_comparison_of_a_batch_is_summed_not_floated():
    code = _loop("loss_fn(model(Xt), yt.float()).backward()") + (
        "correct = 0\nfor start in range(0, 569, 100):\n"
        "    xb, yb = Xt[start:start + 100], yt[start:start + 100]\n"
        "    correct += float((model(xb) > 0).long() == yb)\n"
        "assert correct / 569 > 0.9, correct\n")
    new, _ = repaired_here(code, "tensor_scalar")
    assert "correct += float(((model(xb) > 0).long() == yb).sum().item())" in new


def test_layers_kept_in_a_list_are_registered_as_a_module_list():
    code = DATA.replace(
        "model = nn.Sequential(nn.Linear(30, 8), nn.ReLU(), nn.Linear(8, 1))\n",
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = [nn.Linear(a, b) for a, b in [(30, 8), (8, 1)]]\n\n"
        "    def forward(self, x):\n"
        "        return self.layers[1](torch.relu(self.layers[0](x)))\n\n\n"
        "model = Net()\n") + "loss_fn = nn.BCEWithLogitsLoss()\n" + (
        "for epoch in range(40):\n    opt.zero_grad()\n"
        "    loss_fn(model(Xt), yt.float()).backward()\n    opt.step()\n") + CHECK
    new, diagnosis = repaired_here(code, "module_list")
    assert diagnosis.subclass == "module_registration"
    assert "self.layers = nn.ModuleList([nn.Linear(a, b)" in new


def test_a_hand_written_update_of_leaves_runs_without_grad():
    code = DATA.split("model = ")[0] + (
        "w = torch.zeros(30, 1, requires_grad=True)\n"
        "b = torch.zeros(1, requires_grad=True)\n"
        "for step in range(100):\n"
        "    loss = nn.functional.binary_cross_entropy_with_logits(Xt @ w + b, yt.float())\n"
        "    loss.backward()\n"
        "    w -= 0.5 * w.grad\n"
        "    b -= 0.5 * b.grad\n"
        "    w.grad.zero_()\n"
        "    b.grad.zero_()\n"
        "acc = (((Xt @ w + b) > 0).float() == yt).float().mean().item()\n"
        "assert acc > 0.9, acc\n")
    new, diagnosis = repaired_here(code, "no_grad_update")
    assert diagnosis.subclass == "autograd"
    assert ("    with torch.no_grad():\n        w -= 0.5 * w.grad\n"
            "        b -= 0.5 * b.grad\n    w.grad.zero_()") in new


def test_a_binary_loss_swapped_for_cross_entropy_over_one_output_says_so():
    """fix_loss makes the script run; over a one-unit output layer the new loss learns
    nothing, so the repair carries a caveat (partial), and over one output per class it
    does not."""
    from pipesmith.agents.repair.patches.numerical import swapped_losses

    before = DATA + "loss_fn = nn.BCEWithLogitsLoss()\n"
    after = before.replace("nn.BCEWithLogitsLoss()", "nn.CrossEntropyLoss()")
    notes = swapped_losses(before, after, None)
    assert len(notes) == 1 and "one output unit" in notes[0]
    per_class = after.replace("nn.Linear(8, 1)", "nn.Linear(8, 2)")
    assert swapped_losses(before.replace("nn.Linear(8, 1)", "nn.Linear(8, 2)"), per_class,
                          None) == []
    assert swapped_losses(before, before, None) == []  # nothing swapped
