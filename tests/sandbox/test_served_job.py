"""The supervisor's reading of a served job's replies over the real FIFO channel."""

from __future__ import annotations

import os
import threading
import time

from pipesmith.sandbox.channel import encode, make_channel, open_supervisor_side
from pipesmith.sandbox.served_job import ServedJob


def test_a_reply_that_arrives_in_pieces_slower_than_a_slice_is_read_whole(tmp_path):
    """Under load a reply's header can arrive a while before its body; the wait for the
    job's answer is sliced (to notice a job that ended), and a slice that ended mid-message
    used to drop the bytes read so far, so the next read took the body as a header."""
    channel = make_channel(tmp_path / "channel")
    job = ServedJob(None, tmp_path, "unused", {}, name="w", memory_mb=0, disk_mb=0,
                    read_paths=())
    job._fds = open_supervisor_side(channel)
    writer = os.open(channel / "replies", os.O_WRONLY)
    frames = [encode({"id": "r1", "status": "ok"}, b"x" * 100),
              encode({"id": "r2", "status": "ok"})]
    job._thread = threading.Thread(target=lambda: [
        (os.write(writer, frame[:5]), time.sleep(0.8), os.write(writer, frame[5:]))
        for frame in frames])
    job._thread.start()
    try:
        first, payload = job._reply(time.monotonic() + 10)
        second, _ = job._reply(time.monotonic() + 10)
    finally:
        job._thread.join()
        os.close(writer)
        job.let_go()
    assert (first["id"], payload, second["id"]) == ("r1", b"x" * 100, "r2")
