from sklearn.ensemble import GradientBoostingRegressor


def build_pipeline(task):
    return GradientBoostingRegressor(loss="ls", n_estimators=100, max_depth=2,
                                     learning_rate=0.05, random_state=task["seed"])
