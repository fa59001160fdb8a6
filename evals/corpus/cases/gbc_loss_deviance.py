from sklearn.ensemble import GradientBoostingClassifier


def build_pipeline(task):
    return GradientBoostingClassifier(loss="deviance", n_estimators=60, max_depth=2,
                                      random_state=task["seed"])
