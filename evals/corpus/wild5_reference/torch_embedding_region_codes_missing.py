import numpy as np
import pandas as pd
import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# churn from the numeric columns and learned embeddings of plan and region;
# accuracy on the last 100 sign-ups
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("missing")
plan_codes = torch.tensor(df["plan"].astype("category").cat.codes.to_numpy(), dtype=torch.long)
region_codes = torch.tensor(df["region"].astype("category").cat.codes.to_numpy(), dtype=torch.long)
n_plans, n_regions = df["plan"].nunique(), df["region"].nunique()
numeric = df[["tenure_months", "monthly_fee", "support_calls"]].to_numpy(dtype=np.float32)
y = df["churned"].to_numpy()
train, test = np.arange(400), np.arange(400, 500)
numeric = torch.tensor((numeric - numeric[train].mean(0)) / numeric[train].std(0))


class ChurnNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.plan = nn.Embedding(n_plans, 2)
        self.region = nn.Embedding(n_regions, 2)
        self.body = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x, plan, region):
        return self.body(torch.cat([x, self.plan(plan), self.region(region)], dim=1))


model = ChurnNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
y_train = torch.tensor(y[train])
for epoch in range(60):
    optimizer.zero_grad()
    loss = criterion(model(numeric[train], plan_codes[train], region_codes[train]), y_train)
    loss.backward()
    optimizer.step()
with torch.no_grad():
    predicted = model(numeric[test], plan_codes[test], region_codes[test]).argmax(1).numpy()
print(f"score={(predicted == y[test]).mean():.4f}")
