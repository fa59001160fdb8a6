import numpy as np
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from torch import nn

torch.manual_seed(0)


class ChurnNet(nn.Module):
    """Learned embeddings for plan and region (columns 0 and 1), the numeric columns as is."""

    def __init__(self, n_plans, n_regions, n_numeric):
        super().__init__()
        self.plan = nn.Embedding(n_plans, 3)
        self.region = nn.Embedding(n_regions, 3)
        self.head = nn.Sequential(nn.Linear(6 + n_numeric, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        parts = [self.plan(x[:, 0]), self.region(x[:, 1]), x[:, 2:]]
        return self.head(torch.cat(parts, dim=1)).squeeze(1)


# churn from plan, region (missing ones as their own category) and the numeric columns
df = pd.read_csv("data.csv")
df["plan"] = df["plan"].astype("category").cat.codes
df["region"] = df["region"].fillna("unknown").astype("category").cat.codes
numeric = ["tenure_months", "monthly_fee", "support_calls"]
df[numeric] = (df[numeric] - df[numeric].mean()) / df[numeric].std()
X = torch.tensor(df[["plan", "region", *numeric]].to_numpy(dtype=np.float32))
y = torch.tensor(df["churned"].to_numpy(dtype=np.float32))
idx_train, idx_test = train_test_split(np.arange(len(df)), test_size=0.25, random_state=0,
                                       stratify=df["churned"])
model = ChurnNet(df["plan"].nunique(), df["region"].nunique(), len(numeric))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(200):
    opt.zero_grad()
    loss_fn(model(X[idx_train]), y[idx_train]).backward()
    opt.step()
with torch.no_grad():
    scores = model(X[idx_test]).numpy()
print(f"score={roc_auc_score(y[idx_test].numpy(), scores):.4f}")
