import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


class CombinedAttributesAdder(BaseEstimator):
    """Adds the floor area per room next to the numeric columns (rooms, area, year_built)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return pd.DataFrame(X).assign(area_per_room=X[:, 1] / X[:, 0]).to_numpy()


# house prices from the numeric columns, with an engineered area-per-room attribute
df = pd.read_csv("data.csv")
X, y = df[["rooms", "area", "year_built"]], df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
num_pipeline = Pipeline([
    ("imputer", SimpleImputer(strategy="median")),
    ("attribs_adder", CombinedAttributesAdder()),
    ("std_scaler", StandardScaler()),
    ("model", LinearRegression()),
])
num_pipeline.fit(X_train, y_train)
print(f"score={num_pipeline.score(X_test, y_test):.4f}")
