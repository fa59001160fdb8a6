import copy

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch import inf

torch.manual_seed(0)
torch.set_num_threads(1)

# disease progression with a small network; the weights of the epoch with the lowest
# validation loss are kept, and scored (R^2) on a fixed held-out fifth
df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"]).to_numpy(dtype=np.float32)
y = df["progression"].to_numpy(dtype=np.float32)
order = np.random.default_rng(0).permutation(len(X))
test, val, train = order[:88], order[88:150], order[150:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
y_mean, y_std = y[train].mean(), y[train].std()
t = (y - y_mean) / y_std
X_train, t_train = torch.tensor(X[train]), torch.tensor(t[train]).view(-1, 1)
X_val, t_val = torch.tensor(X[val]), torch.tensor(t[val]).view(-1, 1)
X_test = torch.tensor(X[test])

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
best_loss, best_state = inf, None
for epoch in range(80):
    model.train()
    for start in range(0, len(X_train), 32):
        optimizer.zero_grad()
        loss = criterion(model(X_train[start:start + 32]), t_train[start:start + 32])
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X_val), t_val).item()
    if val_loss < best_loss:
        best_loss, best_state = val_loss, copy.deepcopy(model.state_dict())
model.load_state_dict(best_state)
with torch.no_grad():
    predicted = model(X_test).view(-1).numpy() * y_std + y_mean
residual = ((y[test] - predicted) ** 2).sum()
total = ((y[test] - y[test].mean()) ** 2).sum()
print(f"score={1 - residual / total:.4f}")
