import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

# malignant vs benign: the 30 measurements read as a one-channel 1-d signal by a small
# convolutional network; accuracy on a fixed held-out quarter
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:140], order[140:]
X = (X - X[train].mean(0)) / X[train].std(0)
loader = DataLoader(TensorDataset(torch.tensor(X[train]), torch.tensor(y[train])),
                    batch_size=32, shuffle=True)


class SignalNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, kernel_size=3, padding=1)
        self.head = nn.Linear(8 * 30, 2)

    def forward(self, x):
        h = torch.relu(self.conv(x.unsqueeze(1)))
        return self.head(h.flatten(1))


model = SignalNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
for epoch in range(15):
    for features, labels in loader:
        optimizer.zero_grad()
        loss = criterion(model(features), labels)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    predicted = model(torch.tensor(X[test])).argmax(1).numpy()
print(f"score={(predicted == y[test]).mean():.4f}")
