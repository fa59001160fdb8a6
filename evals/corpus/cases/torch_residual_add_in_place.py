import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


class ResidualNet(nn.Module):
    """A hidden layer with a residual block on top, then a malignant/benign head."""

    def __init__(self, n_features, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(n_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        out = h
        out += self.fc2(h)  # skip connection
        return self.head(torch.relu(out))


df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:140], order[140:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
X_train, y_train = torch.tensor(X[train]), torch.tensor(y[train])
X_test, y_test = torch.tensor(X[test]), torch.tensor(y[test])

model = ResidualNet(X.shape[1])
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
for epoch in range(30):
    for start in range(0, len(X_train), 32):
        xb, yb = X_train[start:start + 32], y_train[start:start + 32]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
model.eval()
with torch.no_grad():
    accuracy = (model(X_test).argmax(1) == y_test).float().mean().item()
print(f"score={accuracy:.4f}")
