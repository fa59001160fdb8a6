from sklearn.ensemble import HistGradientBoostingClassifier


def build_pipeline(task):
    return HistGradientBoostingClassifier(loss="binary_crossentropy", max_iter=100,
                                          random_state=task["seed"])
