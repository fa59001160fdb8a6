import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

# survival from class, sex and port alone: one-hot encode them and fit a Gaussian naive Bayes
df = pd.read_csv("data.csv")
X, y = df[["pclass", "sex", "embarked"]], df["survived"]
model = make_pipeline(OneHotEncoder(handle_unknown="ignore", sparse_output=False), GaussianNB())
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
