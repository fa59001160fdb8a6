import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import train_test_split
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# malignant vs benign with a small batch-normalised network, mini-batches of 25
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy(dtype=np.float32)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
mean, std = X_train.mean(0), X_train.std(0)
X_train, X_test = (X_train - mean) / std, (X_test - mean) / std
loader = DataLoader(TensorDataset(torch.tensor(X_train), torch.tensor(y_train)), batch_size=25,
                    shuffle=True, drop_last=True)
model = nn.Sequential(nn.Linear(30, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(30):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss_fn(model(xb).squeeze(1), yb).backward()
        opt.step()
model.eval()
with torch.no_grad():
    pred = (model(torch.tensor(X_test)).squeeze(1) > 0).numpy()
print(f"score={np.mean(pred == y_test):.4f}")
