import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import pandas as pd

keras.utils.set_random_seed(0)
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype="float32")
X = (X - X.mean(0)) / X.std(0)
y = df["malignant"].to_numpy()
model = keras.Sequential([keras.Input(shape=(30,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="binary_crossentropy",
              metrics=["accuracy"])
model.fit(X[:400], y[:400], epochs=15, batch_size=32, verbose=0)
print(f"score={model.evaluate(X[400:], y[400:], verbose=0)[1]:.4f}")
