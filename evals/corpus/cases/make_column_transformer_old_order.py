import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# survival: numeric columns imputed and scaled, text columns one-hot encoded
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
preprocess = make_column_transformer(
    (["pclass", "age", "fare"], make_pipeline(SimpleImputer(strategy="median"), StandardScaler())),
    (["sex", "embarked"], OneHotEncoder(handle_unknown="ignore")),
)
model = make_pipeline(preprocess, LogisticRegression(max_iter=1000))
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
