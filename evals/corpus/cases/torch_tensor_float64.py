import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
df = pd.read_csv("data.csv")
features = df.drop(columns=["malignant"]).to_numpy()
features = (features - features.mean(0)) / features.std(0)
X = torch.tensor(features)
y = torch.tensor(df["malignant"].to_numpy(), dtype=torch.float32)
model = nn.Sequential(nn.Linear(30, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(X[:400]).squeeze(1), y[:400])
    loss.backward()
    optimizer.step()
predicted = (model(X[400:]).squeeze(1) > 0).float()
print(f"score={(predicted == y[400:]).float().mean().item():.4f}")
