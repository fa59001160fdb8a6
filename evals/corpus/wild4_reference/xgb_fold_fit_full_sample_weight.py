import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils.class_weight import compute_sample_weight

# cultivars with class-balanced sample weights: out-of-fold accuracy from a 5-fold loop on the
# training rows, then one weighted model on all training rows scored on the held-out rows
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]).to_numpy(), df["cultivar"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
weights = compute_sample_weight("balanced", y_train)
params = dict(n_estimators=200, max_depth=3, learning_rate=0.1, tree_method="approx",
              n_jobs=1, random_state=0)
oof = np.zeros(len(y_train), dtype=int)
for fit_idx, val_idx in StratifiedKFold(5, shuffle=True, random_state=0).split(X_train, y_train):
    fold = xgb.XGBClassifier(**params)
    fold.fit(X_train[fit_idx], y_train[fit_idx], sample_weight=weights[fit_idx])
    oof[val_idx] = fold.predict(X_train[val_idx])
print(f"out-of-fold accuracy {np.mean(oof == y_train):.3f}")
model = xgb.XGBClassifier(**params).fit(X_train, y_train, sample_weight=weights)
print(f"score={np.mean(model.predict(X_test) == y_test):.4f}")
