import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# fit on the first 450 tumours, score the later batch (exported with its columns sorted by name)
df = pd.read_csv("data.csv")
features = [c for c in df.columns if c != "malignant"]
train, later = df.iloc[:450], df.iloc[450:]
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(train[features], train["malignant"])
batch = later[sorted(features)]
print(f"score={accuracy_score(later['malignant'], model.predict(batch)):.4f}")
