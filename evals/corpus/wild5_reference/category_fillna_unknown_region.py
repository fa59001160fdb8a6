import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

# churn with native categorical splits: plan and region stored as pandas categories (the
# booster reads the categorical columns from their dtype); subscribers without a recorded
# region are put in a region of their own, 'unknown'
df = pd.read_csv("data.csv")
for col in ["plan", "region"]:
    df[col] = df[col].astype("category")
df["region"] = df["region"].cat.add_categories("unknown").fillna("unknown")
X, y = df.drop(columns=["churned"]), df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=200,
                                       learning_rate=0.05, max_depth=3, random_state=0)
model.fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
