import numpy as np
import pandas as pd
import torch
from torch import nn

from sklearn.metrics import r2_score

torch.manual_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["output"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
y = df["output"].to_numpy(dtype=np.float32)
y_mean, y_std = y.mean(), y.std()
Xt, yt = torch.tensor(X), torch.tensor((y - y_mean) / y_std).unsqueeze(1)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
for epoch in range(300):
    opt.zero_grad()
    loss_fn(model(Xt), yt).backward()
    opt.step()
with torch.no_grad():
    pred = model(Xt).squeeze(1).numpy() * y_std + y_mean
print(f"score={r2_score(y, pred):.4f}")
