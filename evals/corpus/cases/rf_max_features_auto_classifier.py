from sklearn.ensemble import RandomForestClassifier


def build_pipeline(task):
    return RandomForestClassifier(n_estimators=100, max_features="auto",
                                  random_state=task["seed"])
