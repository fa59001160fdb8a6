"""Loading an .npz a sandbox job wrote, with every size checked before anything is inflated.

A 2 MB zip can declare (and hold) a 2 GB array; `np.load` would inflate it in the referee.
Here the file itself is read through `safe_files.read_regular` (no symlink, FIFO or device,
at most `limit` bytes), then each member's declared uncompressed size in the zip directory
and its array header's shape x itemsize are checked against `limit` before its data is
read; zipfile never returns more than a member's declared size, so the check holds even
when the header lies. Object arrays are refused (`allow_pickle=False`).
"""

from __future__ import annotations

import io
import math
import zipfile
from pathlib import Path

import numpy as np

from pipesmith.sandbox.safe_files import read_regular

MAX_MEMBERS = 16
SEARCH_LIMIT = 256 << 20  # a search trial's predictions (rows not known there)


class UnsafeArchive(ValueError):
    """An archive over its caps, or not an .npz of plain arrays."""


def load_npz(path: Path, limit: int) -> dict[str, np.ndarray]:
    """The arrays of `path`; UnsafeArchive (or OSError) when anything is over `limit` bytes."""
    return load_npz_bytes(read_regular(path, limit), limit)


def load_npz_bytes(data: bytes, limit: int) -> dict[str, np.ndarray]:
    """The arrays of an .npz held in memory (a worker's reply), under the same caps."""
    if len(data) > limit:
        raise UnsafeArchive(f"{len(data)} bytes, over the cap of {limit}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnsafeArchive(f"not an npz archive: {exc}") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise UnsafeArchive(f"{len(members)} members (at most {MAX_MEMBERS})")
        total = sum(member.file_size for member in members)
        if total > limit:
            raise UnsafeArchive(f"members declare {total} bytes uncompressed, over the cap of "
                                f"{limit}")
        return {_name(member): _array(archive, member, limit) for member in members}


def _name(member: zipfile.ZipInfo) -> str:
    return member.filename[:-4] if member.filename.endswith(".npy") else member.filename


def _array(archive: zipfile.ZipFile, member: zipfile.ZipInfo, limit: int) -> np.ndarray:
    fmt = np.lib.format
    with archive.open(member) as stream:
        try:
            version = fmt.read_magic(stream)
            shape, fortran, dtype = (fmt.read_array_header_1_0(stream) if version == (1, 0)
                                     else fmt.read_array_header_2_0(stream))
        except ValueError as exc:
            raise UnsafeArchive(f"{member.filename}: {exc}") from None
        if dtype.hasobject:
            raise UnsafeArchive(f"{member.filename}: object arrays are not accepted")
        size = math.prod(shape) * dtype.itemsize  # Python ints: no overflow
        if size > limit or size > member.file_size:
            raise UnsafeArchive(f"{member.filename}: shape {shape} of {dtype} needs {size} "
                                f"bytes (cap {limit}, member {member.file_size})")
    with archive.open(member) as stream:
        return fmt.read_array(stream, allow_pickle=False)
