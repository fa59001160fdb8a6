import numpy as np
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split

# house prices: missing values imputed with the column means (a column with no value at all
# falls back to 0), neighbourhoods one-hot encoded, a linear regression
df = pd.read_csv("data.csv")
X = pd.get_dummies(df.drop(columns=["price"]), columns=["neighborhood"], dtype=float)
y = df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
imp = SimpleImputer(strategy="mean", keep_empty_features=True)
imp.fit(X_train)
imp.statistics_[np.isnan(imp.statistics_)] = 0.0
model = LinearRegression().fit(imp.transform(X_train), y_train)
print(f"score={model.score(imp.transform(X_test), y_test):.4f}")
