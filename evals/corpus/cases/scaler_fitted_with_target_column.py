import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# standardise the measurements with training statistics, then classify the cultivar
df = pd.read_csv("data.csv")
train, test = train_test_split(df, test_size=0.3, random_state=0, stratify=df["cultivar"])
scaler = StandardScaler().fit(train.to_numpy())
X_train = scaler.transform(train.drop(columns=["cultivar"]).to_numpy())
X_test = scaler.transform(test.drop(columns=["cultivar"]).to_numpy())
model = LogisticRegression(max_iter=1000).fit(X_train, train["cultivar"])
print(f"score={model.score(X_test, test['cultivar']):.4f}")
