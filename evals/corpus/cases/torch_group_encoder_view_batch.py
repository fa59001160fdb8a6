import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


class GroupNet(nn.Module):
    """One shared encoder for the three groups of ten measurements (mean, error, worst),
    pooled over the groups, then a malignant/benign head."""

    def __init__(self, group_size=10, hidden=16):
        super().__init__()
        self.group_size = group_size
        self.encoder = nn.Sequential(nn.Linear(group_size, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        groups = x.view(-1, self.group_size)
        h = self.encoder(groups)
        return self.head(h)


df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:140], order[140:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
X_train, y_train = torch.tensor(X[train]), torch.tensor(y[train])
X_test, y_test = torch.tensor(X[test]), torch.tensor(y[test])

model = GroupNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(30):
    for start in range(0, len(X_train), 32):
        xb, yb = X_train[start:start + 32], y_train[start:start + 32]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    accuracy = (model(X_test).argmax(1) == y_test).float().mean().item()
print(f"score={accuracy:.4f}")
