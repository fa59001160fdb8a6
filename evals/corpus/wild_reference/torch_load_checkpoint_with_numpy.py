import numpy as np
import pandas as pd
import torch
from torch import nn

from sklearn.model_selection import train_test_split

# train, checkpoint weights with the scaling statistics, reload and evaluate
torch.manual_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy(dtype=np.float32)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
mean, std = X_train.mean(0), X_train.std(0)
model = nn.Sequential(nn.Linear(30, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()
Xt, yt = torch.tensor((X_train - mean) / std), torch.tensor(y_train).unsqueeze(1)
for epoch in range(200):
    opt.zero_grad()
    loss_fn(model(Xt), yt).backward()
    opt.step()
torch.save({"model": model.state_dict(), "mean": mean, "std": std}, "checkpoint.pt")

checkpoint = torch.load("checkpoint.pt", weights_only=False)
restored = nn.Sequential(nn.Linear(30, 16), nn.ReLU(), nn.Linear(16, 1))
restored.load_state_dict(checkpoint["model"])
with torch.no_grad():
    logits = restored(torch.tensor((X_test - checkpoint["mean"]) / checkpoint["std"]))
acc = ((logits.squeeze(1) > 0).numpy() == (y_test > 0.5)).mean()
print(f"score={acc:.4f}")
