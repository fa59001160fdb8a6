"""Sandboxes that run untrusted candidate code: the protocol (base) and its backends (local).

Nothing is imported here: the harness module, which every sandboxed run starts,
lives in this package and should not pay for the backends.
"""
