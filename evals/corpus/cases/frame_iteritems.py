import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("data.csv")
features = [name for name, column in df.iteritems() if name != "cultivar" and column.std() > 0]
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
model.fit(df[features][::2], df["cultivar"][::2])
print(f"score={model.score(df[features][1::2], df['cultivar'][1::2]):.4f}")
