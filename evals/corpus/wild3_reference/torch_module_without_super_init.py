import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from torch import nn

torch.manual_seed(0)


class CultivarNet(nn.Module):
    """Two hidden layers for the 13 chemical measurements, one logit per cultivar."""

    def __init__(self, n_in, n_classes):
        super().__init__()
        self.hidden = nn.Sequential(nn.Linear(n_in, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.out = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.out(self.hidden(x))


df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy(dtype=np.float32)
y = df["cultivar"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
mean, std = X_train.mean(0), X_train.std(0)
Xtr, Xte = torch.tensor((X_train - mean) / std), torch.tensor((X_test - mean) / std)
model = CultivarNet(13, 3)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(200):
    opt.zero_grad()
    loss_fn(model(Xtr), torch.tensor(y_train)).backward()
    opt.step()
with torch.no_grad():
    pred = model(Xte).argmax(1).numpy()
print(f"score={np.mean(pred == y_test):.4f}")
