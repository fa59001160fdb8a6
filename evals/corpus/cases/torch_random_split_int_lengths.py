import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)

# cultivars with a small network: 80% of the wines for training, 20% held out
df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
dataset = TensorDataset(torch.tensor(X), torch.tensor(df["cultivar"].to_numpy()))
split = 0.2
train_set, val_set = random_split(dataset, [int(len(dataset) * (1 - split)),
                                            int(len(dataset) * split)])
model = nn.Sequential(nn.Linear(13, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(50):
    for xb, yb in DataLoader(train_set, batch_size=16, shuffle=True):
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
xv, yv = next(iter(DataLoader(val_set, batch_size=len(val_set))))
with torch.no_grad():
    accuracy = (model(xv).argmax(1) == yv).float().mean().item()
print(f"score={accuracy:.4f}")
