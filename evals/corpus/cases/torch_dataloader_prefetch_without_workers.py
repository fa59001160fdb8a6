import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

# three cultivars with a small network fed by DataLoaders; a fixed quarter held out
df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy(dtype=np.float32)
y = df["cultivar"].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:45], order[45:]
mean, std = X[train].mean(0), X[train].std(0)
X = (X - mean) / std
train_set = TensorDataset(torch.tensor(X[train]), torch.tensor(y[train]))
test_set = TensorDataset(torch.tensor(X[test]), torch.tensor(y[test]))
loader_args = dict(num_workers=0, prefetch_factor=2, pin_memory=False)
train_loader = DataLoader(train_set, batch_size=16, shuffle=True, **loader_args)
test_loader = DataLoader(test_set, batch_size=64, shuffle=False, **loader_args)

model = nn.Sequential(nn.Linear(13, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(40):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
model.eval()
correct = 0
with torch.no_grad():
    for xb, yb in test_loader:
        correct += (model(xb).argmax(1) == yb).sum().item()
print(f"score={correct / len(test_set):.4f}")
