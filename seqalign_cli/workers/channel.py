"""The socket between the main process and one worker: small messages, each with the descriptors it carries.

A ``SOCK_SEQPACKET`` pair keeps messages whole: one ``send`` is one
``recv``. A message is a pickled tuple of a few fields (a task's number and
counts, a line to say, an error's text); data never travels here, only the
descriptors of the memory files that hold it (``io.cut``), passed with the
message (``SCM_RIGHTS``), so that they arrive with it or not at all.
"""

from __future__ import annotations

import array
import pickle
import socket

#: the largest message (a pickled tuple of a few fields)
MESSAGE = 1 << 16
#: the most descriptors a message carries
FDS = 16


def pair() -> tuple["Channel", socket.socket]:
    """The main process's end, and the socket the worker inherits."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    return Channel(ours), theirs


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, message: tuple, fds: tuple[int, ...] | list[int] = ()):
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > MESSAGE:
            raise ValueError(f"message of {len(data)} bytes (at most {MESSAGE})")
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        self.sock.sendmsg([data], ancillary)

    def recv(self) -> tuple[tuple, list[int]]:
        """The next message and its descriptors (now this process's); EOFError once the other end closed."""
        data, ancillary, _, _ = self.sock.recvmsg(MESSAGE, socket.CMSG_SPACE(FDS * array.array("i").itemsize))
        fds = array.array("i")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        if not data:
            for fd in fds:
                _close(fd)
            raise EOFError
        return pickle.loads(data), list(fds)

    def close(self):
        self.sock.close()


def _close(fd: int):
    import os

    try:
        os.close(fd)
    except OSError:
        pass
