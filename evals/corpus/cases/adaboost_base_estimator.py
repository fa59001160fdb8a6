from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier


def build_pipeline(task):
    stump = DecisionTreeClassifier(max_depth=1)
    return AdaBoostClassifier(base_estimator=stump, n_estimators=50, random_state=task["seed"])
