import pandas as pd
from sklearn.linear_model import LinearRegression

# "Expected 2D array, got 1D array instead": one feature passed as a Series
df = pd.read_csv("data.csv")
train, test = df.iloc[:220], df.iloc[220:]
model = LinearRegression().fit(train["area"], train["price"])
print(f"score={model.score(test['area'], test['price']):.4f}")
