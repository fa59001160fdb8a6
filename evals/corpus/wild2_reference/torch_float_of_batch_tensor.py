import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)

# three species, mini-batches of 30, count the correct predictions batch by batch
df = pd.read_csv("data.csv")
names = sorted(df["species"].unique())
X = df.drop(columns=["species"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
Xt = torch.tensor(X)
yt = torch.tensor(df["species"].map({n: i for i, n in enumerate(names)}).to_numpy())
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(100):
    opt.zero_grad()
    loss_fn(model(Xt), yt).backward()
    opt.step()
correct = 0.0
for start in range(0, len(Xt), 30):
    xb, yb = Xt[start:start + 30], yt[start:start + 30]
    correct += float((model(xb).argmax(1) == yb).sum())
print(f"score={correct / len(Xt):.4f}")
