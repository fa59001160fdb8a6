from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    columns = ["alcohol", "malic acid", "flavanoids", "color_intensity", "proline"]
    prep = ColumnTransformer([("num", StandardScaler(), columns)])
    return make_pipeline(prep, LogisticRegression(max_iter=1000))
