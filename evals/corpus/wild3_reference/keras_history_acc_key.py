import keras
import numpy as np
import pandas as pd

keras.utils.set_random_seed(0)

# three species with a small dense network; the validation accuracy of the last epoch
df = pd.read_csv("data.csv")
names = sorted(df["species"].unique())
X = df.drop(columns=["species"]).to_numpy(dtype=np.float32)
X = (X - X.mean(0)) / X.std(0)
y = df["species"].map({n: i for i, n in enumerate(names)}).to_numpy()
order = np.random.default_rng(0).permutation(len(X))
X, y = X[order], y[order]
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
history = model.fit(X, y, validation_split=0.2, epochs=60, batch_size=16, verbose=0)
print(f"score={history.history['val_accuracy'][-1]:.4f}")
