import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# three cultivars with a small network; a fixed quarter of the wines held out
df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy(dtype=np.float32)
y = df[["cultivar"]].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:45], order[45:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
X_train, y_train = torch.tensor(X[train]), torch.tensor(y[train])
X_test, y_test = torch.tensor(X[test]), torch.tensor(y[test])

model = nn.Sequential(nn.Linear(13, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(60):
    for start in range(0, len(X_train), 16):
        xb, yb = X_train[start:start + 16], y_train[start:start + 16]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    predicted = model(X_test).argmax(1)
accuracy = (predicted == y_test).float().mean().item()
print(f"score={accuracy:.4f}")
