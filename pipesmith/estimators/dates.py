"""DateFeatures: date columns as numbers a model can use (year, month, day, day of week,
and days since 1970), so a date is a feature rather than a dropped column.

Generated candidate modules import it from `pipesmith.estimators`, so a fitted pipeline
pickles it by reference and loads wherever pipesmith is installed. Values that do not
parse are missing (NaN); the pipeline's imputer fills them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

PARTS = ("year", "month", "day", "dayofweek", "days")


class DateFeatures(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.columns_ = [str(c) for c in pd.DataFrame(X).columns]
        self.n_features_in_ = len(self.columns_)
        return self

    def transform(self, X):
        frame = pd.DataFrame(X)
        out = []
        for column in frame.columns:
            dates = pd.to_datetime(frame[column].astype("string"), errors="coerce",
                                   format="mixed", utc=True).dt.tz_convert(None)
            days = (dates - pd.Timestamp("1970-01-01")).dt.total_seconds() / 86400.0
            out += [dates.dt.year, dates.dt.month, dates.dt.day, dates.dt.day_of_week, days]
        if not out:
            return np.zeros((len(frame), 0))
        return np.column_stack([np.asarray(part, dtype=float) for part in out])

    def get_feature_names_out(self, input_features=None):
        names = input_features if input_features is not None else self.columns_
        return np.asarray([f"{c}_{p}" for c in names for p in PARTS], dtype=object)
