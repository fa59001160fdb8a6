import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

# "Cannot use mean strategy with non-numeric data": the imputer sees the text column
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["price"]), df["price"]
model = make_pipeline(SimpleImputer(strategy="mean"), LinearRegression())
print(f"score={cross_val_score(model, X, y).mean():.4f}")
