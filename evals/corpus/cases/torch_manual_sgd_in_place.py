import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)

# logistic regression written out by hand, plain gradient descent
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
Xt = torch.tensor(X)
yt = torch.tensor(df["malignant"].to_numpy(dtype=np.float32))
w = torch.zeros(X.shape[1], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for step in range(200):
    loss = nn.functional.binary_cross_entropy_with_logits(Xt @ w + b, yt)
    loss.backward()
    w -= lr * w.grad
    b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
acc = (((Xt @ w + b) > 0).float() == yt).float().mean().item()
print(f"score={acc:.4f}")
