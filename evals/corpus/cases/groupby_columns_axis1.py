import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def quantity(column):
    # mean_radius, radius_error and worst_radius all describe the radius
    return column.replace("mean_", "").replace("worst_", "").replace("_error", "")


# one feature per measured quantity: the average of its mean, error and worst columns
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"])
X = X.groupby(quantity, axis=1).mean()
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
print(f"score={cross_val_score(model, X, df['malignant'], cv=5).mean():.4f}")
