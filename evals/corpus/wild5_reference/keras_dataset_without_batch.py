import keras
import numpy as np
import pandas as pd
import tensorflow as tf
from keras import layers

keras.utils.set_random_seed(0)

# malignant vs benign with a small network fed from a tf.data pipeline (shuffled each
# epoch); accuracy on a fixed held-out quarter
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy(dtype=np.float32)
order = np.random.default_rng(0).permutation(len(X))
test, train = order[:140], order[140:]
X = (X - X[train].mean(0)) / X[train].std(0)
train_ds = tf.data.Dataset.from_tensor_slices((X[train], y[train])).shuffle(512, seed=0).batch(32)

model = keras.Sequential([layers.Dense(16, activation="relu"),
                          layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=20, verbose=0)
loss, accuracy = model.evaluate(X[test], y[test], verbose=0)
print(f"score={accuracy:.4f}")
