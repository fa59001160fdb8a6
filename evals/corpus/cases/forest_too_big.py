from sklearn.ensemble import RandomForestClassifier


def build_pipeline(task):
    return RandomForestClassifier(n_estimators=50000, random_state=task["seed"])
