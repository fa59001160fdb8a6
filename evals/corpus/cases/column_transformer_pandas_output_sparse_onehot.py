import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# survival from class, sex, age, fare and port; the preprocessing returns a DataFrame so
# that the encoded column names can be printed next to the model's coefficients
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                    stratify=y)
preprocess = ColumnTransformer([
    ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()),
     ["pclass", "age", "fare"]),
    ("cat", OneHotEncoder(handle_unknown="ignore"), ["sex", "embarked"]),
]).set_output(transform="pandas")
X_train_t = preprocess.fit_transform(X_train)
model = LogisticRegression(max_iter=1000).fit(X_train_t, y_train)
for name, coef in zip(X_train_t.columns, model.coef_[0]):
    print(f"{name:>20} {coef:+.3f}")
pred = model.predict(preprocess.transform(X_test))
print(f"score={accuracy_score(y_test, pred):.4f}")
