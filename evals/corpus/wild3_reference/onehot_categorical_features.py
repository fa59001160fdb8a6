import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder, OneHotEncoder

# house prices: the neighbourhood label-encoded, then one-hot encoded (column 2 of the
# matrix), missing build years filled with the median, a linear model on top
df = pd.read_csv("data.csv")
df["year_built"] = df["year_built"].fillna(df["year_built"].median())
X = df[["rooms", "area", "neighborhood", "year_built"]].to_numpy()
y = df["price"].to_numpy()
X[:, 2] = LabelEncoder().fit_transform(X[:, 2])
onehotencoder = ColumnTransformer([("hood", OneHotEncoder(), [2])], remainder="passthrough",
                                  sparse_threshold=0)
X = onehotencoder.fit_transform(X).astype(float)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = LinearRegression().fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
