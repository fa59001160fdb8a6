import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# survival model; then find the port/class groups of test passengers it predicts worst
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
prep = make_column_transformer(
    (OneHotEncoder(handle_unknown="ignore"), ["sex", "embarked", "pclass"]),
    (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), ["age", "fare"]),
)
model = make_pipeline(prep, LogisticRegression(max_iter=1000)).fit(X_train, y_train)
proba = model.predict_proba(X_test)[:, 1]
test = X_test.assign(survived=y_test, proba=proba)
for (port, pclass), group in test.groupby(["embarked", "pclass"]):
    loss = log_loss(group["survived"], group["proba"], labels=[0, 1])
    print(f"{port} class {pclass}: log loss {loss:.3f} ({len(group)} passengers)")
print(f"score={roc_auc_score(y_test, proba):.4f}")
