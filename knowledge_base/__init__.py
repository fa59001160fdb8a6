"""The knowledge base: an append-only record log and a Chroma index over it.

Nothing is imported here: Chroma is slow to import, so `store` loads it only when
the index is first used.
"""
