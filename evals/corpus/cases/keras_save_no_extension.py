import numpy as np
import pandas as pd
import keras

# Keras 3: model.save() needs a .keras (or .h5) file name; a bare folder name is refused
keras.utils.set_random_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype="float32")
X = (X - X.mean(0)) / X.std(0)
y = df["malignant"].to_numpy()
model = keras.Sequential([keras.Input((X.shape[1],)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(X[:400], y[:400], epochs=20, verbose=0)
model.save("cancer_model")
print(f"score={model.evaluate(X[400:], y[400:], verbose=0)[1]:.4f}")
