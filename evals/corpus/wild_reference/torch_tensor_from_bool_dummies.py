import numpy as np
import pandas as pd
import torch
from torch import nn

from sklearn.metrics import r2_score

torch.manual_seed(0)
df = pd.read_csv("data.csv")
df["year_built"] = df["year_built"].fillna(df["year_built"].median())
for col in ["rooms", "area", "year_built"]:
    df[col] = (df[col] - df[col].mean()) / df[col].std()
features = pd.get_dummies(df.drop(columns=["price"]), columns=["neighborhood"])
y = df["price"].to_numpy(dtype=np.float32)
y_mean, y_std = y.mean(), y.std()
Xt = torch.tensor(features.to_numpy(dtype=np.float32))
yt = torch.tensor((y - y_mean) / y_std).unsqueeze(1)
model = nn.Sequential(nn.Linear(Xt.shape[1], 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(300):
    opt.zero_grad()
    nn.functional.mse_loss(model(Xt), yt).backward()
    opt.step()
with torch.no_grad():
    pred = model(Xt).squeeze(1).numpy() * y_std + y_mean
print(f"score={r2_score(y, pred):.4f}")
