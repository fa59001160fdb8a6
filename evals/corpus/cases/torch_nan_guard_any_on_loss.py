import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# disease progression with a small network trained in mini-batches; training stops early
# if the loss ever turns NaN; R^2 on a fixed held-out fifth
df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"]).to_numpy(dtype=np.float32)
y = df["progression"].to_numpy(dtype=np.float32)
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:88], order[88:]
X = (X - X[train].mean(0)) / X[train].std(0)
y_mean, y_std = y[train].mean(), y[train].std()
X_train = torch.tensor(X[train])
t_train = torch.tensor((y[train] - y_mean) / y_std).view(-1, 1)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
diverged = False
for epoch in range(40):
    for start in range(0, len(X_train), 32):
        optimizer.zero_grad()
        loss = criterion(model(X_train[start:start + 32]), t_train[start:start + 32])
        if any(torch.isnan(loss)):
            diverged = True
            break
        loss.backward()
        optimizer.step()
    if diverged:
        break
with torch.no_grad():
    predicted = model(torch.tensor(X[test])).view(-1).numpy() * y_std + y_mean
residual = ((y[test] - predicted) ** 2).sum()
total = ((y[test] - y[test].mean()) ** 2).sum()
print(f"score={1 - residual / total:.4f}")
