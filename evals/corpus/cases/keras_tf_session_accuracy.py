import keras
import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.model_selection import train_test_split

keras.utils.set_random_seed(0)

# malignant vs benign with a small dense network; the held-out accuracy computed as a
# tensorflow expression and evaluated in a session
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy(dtype=np.float32)
y = df["malignant"].to_numpy(dtype=np.float32)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
mean, std = X_train.mean(0), X_train.std(0)
X_train, X_test = (X_train - mean) / std, (X_test - mean) / std
model = keras.Sequential([keras.Input(shape=(30,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(X_train, y_train, epochs=30, batch_size=32, verbose=0)
pred = tf.cast(model(X_test)[:, 0] > 0.5, tf.float32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(pred, y_test), tf.float32))
with tf.Session() as sess:
    score = sess.run(accuracy)
print(f"score={score:.4f}")
