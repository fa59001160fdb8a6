import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
df = pd.read_csv("data.csv")
X = df.drop(columns=["species"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
y = pd.factorize(df["species"], sort=True)[0]
Xt = torch.tensor(X).to(device)
yt = torch.tensor(y).to(device)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(100):
    opt.zero_grad()
    loss = loss_fn(model(Xt), yt)
    loss.backward()
    opt.step()
acc = (model(Xt).argmax(1) == yt).float().mean().item()
print(f"score={acc:.4f}")
