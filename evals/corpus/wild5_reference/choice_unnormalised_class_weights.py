import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# malignant vs benign with a class-balanced bootstrap: every training row is drawn with a
# probability inversely proportional to its class's size, so both classes are equally common
# in the resampled training set
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]).to_numpy(), df["malignant"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
np.random.seed(0)
counts = np.bincount(y_train)
p = 1.0 / counts[y_train]
p = p / p.sum()
idx = np.random.choice(len(y_train), size=len(y_train), replace=True, p=p)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(X_train[idx], y_train[idx])
print(f"score={np.mean(model.predict(X_test) == y_test):.4f}")
