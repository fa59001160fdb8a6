import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# malignant vs benign with a logistic-regression layer fitted full-batch by L-BFGS;
# accuracy on a fixed held-out quarter
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy(dtype=np.float32)
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:140], order[140:]
X = (X - X[train].mean(0)) / X[train].std(0)
X_train, y_train = torch.tensor(X[train]), torch.tensor(y[train]).view(-1, 1)
X_test = torch.tensor(X[test])

model = nn.Linear(30, 1)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=20)
for epoch in range(10):
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(X_train), y_train) + 1e-3 * model.weight.pow(2).sum()
        loss.backward()
        return loss
    optimizer.step(closure)
with torch.no_grad():
    predicted = (model(X_test).view(-1) > 0).numpy().astype(int)
print(f"score={(predicted == y[test]).mean():.4f}")
