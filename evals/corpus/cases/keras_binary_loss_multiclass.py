import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import pandas as pd
import keras
from keras import layers

keras.utils.set_random_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["species"]).to_numpy(dtype="float32")
y = pd.factorize(df["species"])[0]
model = keras.Sequential([keras.Input(shape=(4,)), layers.Dense(16, activation="relu"),
                          layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(X[::2], y[::2], epochs=60, batch_size=8, verbose=0)
predicted = model.predict(X[1::2], verbose=0).argmax(axis=1)
print(f"score={(predicted == y[1::2]).mean():.4f}")
