import numpy as np
import pandas as pd
import torch
from torch import nn

# "invalid index of a 0-dim tensor. Use tensor.item()": loss.data[0] from torch 0.3 code
torch.manual_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["species"]).to_numpy(dtype=np.float32)
y = pd.factorize(df["species"])[0]
X = (X - X.mean(0)) / X.std(0)
Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(100):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(Xt), yt)
    loss.backward()
    opt.step()
    if epoch % 20 == 0:
        print("epoch", epoch, "loss", loss.data[0])
acc = (model(Xt).argmax(1) == yt).float().mean().item()
print(f"score={acc:.4f}")
