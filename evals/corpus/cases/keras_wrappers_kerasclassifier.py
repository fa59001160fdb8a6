import keras
import pandas as pd
from keras.layers import Dense
from keras.models import Sequential
from keras.wrappers.scikit_learn import KerasClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

keras.utils.set_random_seed(0)


def build_classifier():
    classifier = Sequential()
    classifier.add(keras.Input(shape=(13,)))
    classifier.add(Dense(16, activation="relu"))
    classifier.add(Dense(3, activation="softmax"))
    classifier.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    return classifier


# three cultivars: a scaler and a Keras network as one scikit-learn pipeline
df = pd.read_csv("data.csv")
X = df.drop(columns=["cultivar"]).to_numpy()
y = df["cultivar"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                    stratify=y)
classifier = KerasClassifier(build_fn=build_classifier, batch_size=10, epochs=40, verbose=0)
pipeline = make_pipeline(StandardScaler(), classifier)
pipeline.fit(X_train, y_train)
print(f"score={pipeline.score(X_test, y_test):.4f}")
