import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

# shuffle features and labels together, train on the first 70%, test on the rest
df = pd.read_csv("data.csv")
X = StandardScaler().fit_transform(df.drop(columns=["cultivar"]).to_numpy())
y = df["cultivar"].to_numpy()
data = np.hstack((X, y))
np.random.default_rng(0).shuffle(data)
cut = int(0.7 * len(data))
X_train, y_train = data[:cut, :-1], data[:cut, -1]
X_test, y_test = data[cut:, :-1], data[cut:, -1]
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
