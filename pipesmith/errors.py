"""Errors split by whose fault they are.

A failing candidate is data in the run state, never an exception. Bad user
input raises InputError (one clear line, exit code 2). Broken infrastructure
raises anything else.
"""


class InputError(ValueError):
    """The user's data or options cannot be used; the message says why in one line."""
