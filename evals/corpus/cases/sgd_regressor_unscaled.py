from sklearn.linear_model import SGDRegressor


def build_pipeline(task):
    return SGDRegressor(learning_rate="constant", eta0=0.01, max_iter=50,
                        random_state=task["seed"])
