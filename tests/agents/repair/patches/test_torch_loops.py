"""Hand-written torch training loops repaired at the failing expression (#25)."""

from __future__ import annotations

import pytest

from tests.agents.repair.sandboxed import repaired_here

pytest.importorskip("torch")

LOOP = """\
import numpy as np
import torch
from torch import nn
from sklearn.datasets import load_wine

torch.manual_seed(0)
X, y = load_wine(return_X_y=True)
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
Xt, yt = torch.tensor(X), torch.tensor(y{shift})
model = nn.Sequential(nn.Linear(13, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
{before}for epoch in range(60):
    opt.zero_grad()
    {loss}.backward()
    opt.step()
acc = (model(Xt).argmax(1){back} == yt).float().mean().item()
assert acc > 0.9, acc
"""


def test_one_based_class_targets_are_shifted_at_the_loss_only():
    code = LOOP.format(shift=" + 1", before="", loss="loss_fn(model(Xt), yt)", back=" + 1")
    new, diagnosis = repaired_here(code, "targets_from_zero")
    assert diagnosis.subclass == "loss_target_mismatch"
    assert "loss_fn(model(Xt), (yt - 1)).backward()" in new


def test_a_forward_pass_outside_the_loop_is_recomputed_in_every_iteration():
    code = LOOP.format(shift="", before="logits = model(Xt)\n", loss="loss_fn(logits, yt)",
                       back="")
    new, diagnosis = repaired_here(code, "forward_in_loop")
    assert diagnosis.subclass == "autograd"
    assert "for epoch in range(60):\n    logits = model(Xt)\n    opt.zero_grad()" in new


def test_bool_dummies_beside_floats_are_cast_before_torch_sees_them():
    code = ("import pandas as pd\nimport torch\n"
            "frame = pd.DataFrame({'area': [1.5, 2.0, 3.1], 'hood': ['a', 'b', 'a']})\n"
            "features = pd.get_dummies(frame, columns=['hood'])\n"
            "Xt = torch.tensor(features.values, dtype=torch.float32)\n"
            "assert Xt.shape == (3, 3) and Xt[0, 1].item() == 1.0\n")
    new, diagnosis = repaired_here(code, "numeric_tensor_input")
    assert diagnosis.subclass == "dtype"
    assert "torch.tensor((features.values).astype('float32'), dtype=torch.float32)" in new
