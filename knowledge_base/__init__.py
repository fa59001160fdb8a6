"""The knowledge base: an append-only record log and a Chroma index over it."""

from pipesmith.knowledge_base.embeddings import HashingEmbedding
from pipesmith.knowledge_base.store import KnowledgeBase, RunRecord

__all__ = ["HashingEmbedding", "KnowledgeBase", "RunRecord"]
