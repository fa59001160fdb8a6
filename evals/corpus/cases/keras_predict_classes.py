import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import pandas as pd
import keras
from keras import layers

keras.utils.set_random_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype="float32")
X = (X - X.mean(0)) / X.std(0)
y = df["malignant"].to_numpy()
model = keras.Sequential([keras.Input(shape=(30,)), layers.Dense(8, activation="relu"),
                          layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(X[:400], y[:400], epochs=15, verbose=0)
predicted = model.predict_classes(X[400:]).ravel()
print(f"score={(predicted == y[400:]).mean():.4f}")
