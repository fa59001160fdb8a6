import numpy as np
import pandas as pd
import torch
from torch import nn

from sklearn.metrics import r2_score

torch.manual_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
y = df["progression"].to_numpy(dtype=np.float32)
Xt, yt = torch.tensor(X), torch.tensor((y - y.mean()) / y.std()).unsqueeze(1)
model = nn.Linear(X.shape[1], 1)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(300):
    opt.zero_grad()
    nn.functional.mse_loss(model(Xt), yt).backward()
    opt.step()
pred = model(Xt).detach().numpy().ravel() * y.std() + y.mean()
print(f"score={r2_score(y, pred):.4f}")
