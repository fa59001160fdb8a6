import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

# weight the rarer churners up so both outcomes count the same
df = pd.read_csv("data.csv")
X = df[["tenure_months", "monthly_fee", "support_calls"]]
X_train, X_test, y_train, y_test = train_test_split(X, df["churned"], test_size=0.25, random_state=0)
weights = compute_sample_weight("balanced", y_train)
model = make_pipeline(StandardScaler(), LogisticRegression())
model.fit(X_train, y_train, logisticregression__sample_weight=weights)
print(f"score={model.score(X_test, y_test):.4f}")
