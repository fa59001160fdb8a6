import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

# churn from tenure, fee and support calls; the model is judged on the Premium customers
# among the held-out rows
df = pd.read_csv("data.csv")
features = ["tenure_months", "monthly_fee", "support_calls"]
train, test = train_test_split(df, test_size=0.3, stratify=df["churned"], random_state=0)
scaler = MinMaxScaler().fit(train[features])
model = LogisticRegression(max_iter=1000).fit(scaler.transform(train[features]),
                                              train["churned"])
premium = test[test["plan"] == "Premium"]
pred = model.predict(scaler.transform(premium[features]))
print(f"score={accuracy_score(premium['churned'], pred):.4f}")
