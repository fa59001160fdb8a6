import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

# disease progression with a small MLP: features and target both standardised for training,
# predictions mapped back to the original scale; R^2 on held-out patients
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
x_scaler = StandardScaler().fit(X_train)
y_scaler = StandardScaler().fit(y_train.to_numpy().reshape(-1, 1))
mlp = MLPRegressor(hidden_layer_sizes=(16,), alpha=1.0, max_iter=2000, random_state=0)
mlp.fit(x_scaler.transform(X_train), y_scaler.transform(y_train.to_numpy().reshape(-1, 1)).ravel())
pred = y_scaler.inverse_transform(mlp.predict(x_scaler.transform(X_test)).reshape(-1, 1)).ravel()
ss_res = ((y_test - pred) ** 2).sum()
ss_tot = ((y_test - y_test.mean()) ** 2).sum()
print(f"score={1 - ss_res / ss_tot:.4f}")
