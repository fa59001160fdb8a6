import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    # a stack of fully connected layers, depth given as an argument
    def __init__(self, sizes):
        super().__init__()
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
Xt, yt = torch.tensor(X), torch.tensor(df["cultivar"].to_numpy())
model = Net([X.shape[1], 32, 16, 3])
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(150):
    opt.zero_grad()
    loss_fn(model(Xt), yt).backward()
    opt.step()
acc = (model(Xt).argmax(1) == yt).float().mean().item()
print(f"score={acc:.4f}")
