import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# malignant vs benign with a balanced training set: each class resampled to the size of the
# largest class before a scaled logistic regression
df = pd.read_csv("data.csv")
train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["malignant"])
n_max = train["malignant"].value_counts().max()
parts = [train[train["malignant"] == c].sample(n=n_max, random_state=0)
         for c in sorted(train["malignant"].unique())]
balanced = pd.concat(parts, ignore_index=True)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(balanced.drop(columns=["malignant"]), balanced["malignant"])
pred = model.predict(test.drop(columns=["malignant"]))
print(f"score={np.mean(pred == test['malignant'].to_numpy()):.4f}")
