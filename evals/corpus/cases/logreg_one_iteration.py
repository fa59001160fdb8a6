from sklearn.linear_model import LogisticRegression


def build_pipeline(task):
    return LogisticRegression(max_iter=1)
