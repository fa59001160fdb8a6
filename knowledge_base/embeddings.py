"""Offline embedding functions for Chroma (its default one downloads a model)."""

from __future__ import annotations

import hashlib
import re

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

_TOKEN = re.compile(r"[a-z_]+|\d+(?:\.\d+)?")


@register_embedding_function
class HashingEmbedding(EmbeddingFunction[Documents]):
    """Signed feature hashing of word and number tokens, L2-normalised. Fast and offline.

    Registered with Chroma under its name, so a collection created with it reopens
    (`client.get_collection("runs")`) with the same function and no extra arguments,
    once this module has been imported.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def __call__(self, input: Documents) -> Embeddings:
        return [self._embed(text) for text in input]

    def _embed(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        tokens = _TOKEN.findall(text.lower())
        for token in tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]:
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dim
            vector[index] += 1.0 if digest[4] & 1 else -1.0
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    @staticmethod
    def name() -> str:
        return "pipesmith-hashing"

    def get_config(self) -> dict:
        return {"dim": self.dim}

    @staticmethod
    def build_from_config(config: dict) -> HashingEmbedding:
        return HashingEmbedding(dim=config.get("dim", 256))
