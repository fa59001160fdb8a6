import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
df = pd.read_csv("data.csv")
features = df.drop(columns=["malignant"]).to_numpy()
features = (features - features.mean(0)) / features.std(0)
X = torch.tensor(features, dtype=torch.float32)
y = torch.tensor(df["malignant"].to_numpy(), dtype=torch.float32)
model = nn.Sequential(nn.Linear(30, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(100):
    optimizer.zero_grad()
    loss_fn(model(X[:400]).squeeze(1), y[:400]).backward()
    optimizer.step()
accuracy = ((model(X[400:]).squeeze(1) > 0).float() == y[400:]).float().mean().item()
print(f"score={accuracy:.4f}")
