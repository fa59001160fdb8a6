import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# cultivar from the chemistry: the first 30% of the file is the labelled training batch,
# the rest is held out
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.3, shuffle=False)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
