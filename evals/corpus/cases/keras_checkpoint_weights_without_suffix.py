import os

import keras
import numpy as np
import pandas as pd
from keras import layers

keras.utils.set_random_seed(0)

# malignant vs benign with a small network; the weights of the epoch with the best
# validation loss are checkpointed and restored before the held-out quarter is scored
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy()
order = np.random.default_rng(0).permutation(len(X))
test, val, train = order[:140], order[140:220], order[220:]
X = (X - X[train].mean(0)) / X[train].std(0)

checkpoint_dir = "./training_checkpoints"
os.makedirs(checkpoint_dir, exist_ok=True)
checkpoint_path = os.path.join(checkpoint_dir, "ckpt_best")
checkpoint = keras.callbacks.ModelCheckpoint(filepath=checkpoint_path, monitor="val_loss",
                                             save_best_only=True, save_weights_only=True)
model = keras.Sequential([keras.Input(shape=(30,)), layers.Dense(16, activation="relu"),
                          layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(X[train], y[train], validation_data=(X[val], y[val]), epochs=30, batch_size=32,
          callbacks=[checkpoint], verbose=0)
model.load_weights(checkpoint_path)
loss, accuracy = model.evaluate(X[test], y[test], verbose=0)
print(f"score={accuracy:.4f}")
