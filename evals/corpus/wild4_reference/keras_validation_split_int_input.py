import keras
import numpy as np
import pandas as pd
from keras import layers

keras.utils.set_random_seed(0)

# churn from the numeric columns and a learned embedding of the region (a two-input model);
# a fifth of the training rows for validation, accuracy on the last 100 sign-ups
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("missing")
regions = sorted(df["region"].unique())
n_regions = len(regions)
region_codes = df["region"].map({r: i for i, r in enumerate(regions)}).to_numpy()
numeric = df[["tenure_months", "monthly_fee", "support_calls"]].to_numpy(dtype=np.float32)
y = df["churned"].to_numpy()
train, test = np.arange(400), np.arange(400, 500)
numeric = (numeric - numeric[train].mean(0)) / numeric[train].std(0)

numeric_in = keras.Input(shape=(3,), name="numeric")
region_in = keras.Input(shape=(1,), name="region")
region_vec = layers.Flatten()(layers.Embedding(n_regions, 3)(region_in))
hidden = layers.Dense(16, activation="relu")(layers.Concatenate()([numeric_in, region_vec]))
output = layers.Dense(1, activation="sigmoid")(hidden)
model = keras.Model([numeric_in, region_in], output)
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="binary_crossentropy",
              metrics=["accuracy"])
model.fit([numeric[train], region_codes[train]], y[train], batch_size=32, epochs=30,
          validation_split=0.2, verbose=0)
loss, accuracy = model.evaluate([numeric[test], region_codes[test]], y[test], verbose=0)
print(f"score={accuracy:.4f}")
