import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.utils import check_array


class QuantileClipper(TransformerMixin, BaseEstimator):
    """Clips each column to its 1st-99th percentile range; missing values pass through."""

    def fit(self, X, y=None):
        X = check_array(X, ensure_all_finite="allow-nan")
        self.low_ = np.nanpercentile(X, 1, axis=0)
        self.high_ = np.nanpercentile(X, 99, axis=0)
        return self

    def transform(self, X):
        X = check_array(X, ensure_all_finite="allow-nan")
        return np.clip(X, self.low_, self.high_)


# house prices from size and age: clip extreme values, fill missing build years, fit a line
df = pd.read_csv("data.csv")
X, y = df[["rooms", "area", "year_built"]], df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = make_pipeline(QuantileClipper(), SimpleImputer(strategy="median"), LinearRegression())
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
