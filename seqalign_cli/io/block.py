"""Records held as columns: the host-side unit of reading, pairing and writing.

A ``RecordBlock`` holds n records without one Python object per record:

* names: UTF-8 bytes back to back (``names``) with (n+1,) offsets ``name_off``;
* sequences: the letters as read (``seq``) with (n+1,) offsets ``seq_off``;
  ``codes()`` encodes them for a backend;
* qualities (FASTQ): ``qual`` with the same offsets as the sequence (a
  quality string always has its sequence's length), or None;
* ``num``: the 1-based number of each record in its file (0 for a region cut
  by name).

Offsets are int64 and start at 0; the buffers may be views into larger ones.
Blocks are sliced, gathered (``take``) and concatenated with array
operations; ``records()`` gives ``Record`` objects for the few places that
want them (SAM output, tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..jit import nb
from .encode import encode_block

_JIT = dict(nogil=True, cache=True, boundscheck=False)
_EMPTY_U8 = np.zeros(0, np.uint8)


@dataclass(slots=True)
class Record:
    name: str
    seq: bytes
    qual: bytes | None = None
    #: 1-based number of the record in its file (0 for a region cut by name)
    num: int = 0


@nb.njit(**_JIT)
def _gather(buf, off, idx):
    """The segments ``idx`` of (buf, off), back to back, and their offsets."""
    n = idx.shape[0]
    new_off = np.empty(n + 1, np.int64)
    new_off[0] = 0
    for k in range(n):
        p = idx[k]
        new_off[k + 1] = new_off[k] + off[p + 1] - off[p]
    out = np.empty(new_off[n], np.uint8)
    for k in range(n):
        s = off[idx[k]]
        d = new_off[k]
        for i in range(new_off[k + 1] - d):
            out[d + i] = buf[s + i]
    return out, new_off


@nb.njit(**_JIT)
def _gather_same(buf, off, new_off, idx):
    """Like ``_gather`` for a second buffer sharing the offsets ``off`` (new ones known)."""
    out = np.empty(new_off[idx.shape[0]], np.uint8)
    for k in range(idx.shape[0]):
        s = off[idx[k]]
        d = new_off[k]
        for i in range(new_off[k + 1] - d):
            out[d + i] = buf[s + i]
    return out


def _concat_offsets(offs: list[np.ndarray]) -> np.ndarray:
    n = sum(len(o) - 1 for o in offs)
    out = np.empty(n + 1, np.int64)
    out[0] = 0
    at = 0
    base = 0
    for o in offs:
        m = len(o) - 1
        out[at + 1:at + 1 + m] = o[1:] + base
        at += m
        base += int(o[-1])
    return out


class BlockView(NamedTuple):
    """What compiled formatters read of a block: names, the letters as read and their offsets."""

    names: np.ndarray
    name_off: np.ndarray
    seq: np.ndarray
    seq_off: np.ndarray


@dataclass(eq=False)
class RecordBlock:
    names: np.ndarray
    name_off: np.ndarray
    seq: np.ndarray
    seq_off: np.ndarray
    qual: np.ndarray | None
    num: np.ndarray
    #: the codes of ``seq``, made by the first ``codes()``
    encoded: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.seq_off) - 1

    @property
    def first(self) -> int:
        """Number of the first record in its file (0 when empty or not from a file)."""
        return int(self.num[0]) if len(self.num) else 0

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.seq_off)

    @classmethod
    def empty(cls, fastq: bool = False) -> "RecordBlock":
        z = np.zeros(1, np.int64)
        return cls(_EMPTY_U8, z, _EMPTY_U8, z, _EMPTY_U8 if fastq else None, np.zeros(0, np.int64))

    @classmethod
    def from_records(cls, records) -> "RecordBlock":
        """A block holding ``records`` (objects with name, seq, qual, num)."""
        records = list(records)
        names = [r.name.encode() for r in records]
        seqs = [r.seq for r in records]
        n = len(records)
        name_off = np.zeros(n + 1, np.int64)
        seq_off = np.zeros(n + 1, np.int64)
        if n:
            np.cumsum([len(x) for x in names], out=name_off[1:])
            np.cumsum([len(x) for x in seqs], out=seq_off[1:])
        seq = np.frombuffer(b"".join(seqs), np.uint8)
        fastq = n > 0 and all(r.qual is not None for r in records)
        qual = np.frombuffer(b"".join(r.qual for r in records), np.uint8) if fastq else None
        return cls(np.frombuffer(b"".join(names), np.uint8), name_off, seq, seq_off, qual,
                   np.array([r.num for r in records], np.int64))

    def slice(self, start: int, stop: int) -> "RecordBlock":
        """Records ``start .. stop-1`` (views of the buffers, the codes' too once made)."""
        n = len(self)
        start, stop = max(0, min(start, n)), max(0, min(stop, n))
        stop = max(start, stop)
        no, so = self.name_off, self.seq_off
        a, b = int(so[start]), int(so[stop])
        return RecordBlock(self.names[no[start]:no[stop]], no[start:stop + 1] - no[start],
                           self.seq[a:b], so[start:stop + 1] - a,
                           None if self.qual is None else self.qual[a:b], self.num[start:stop],
                           None if self.encoded is None else self.encoded[a:b])

    def take(self, idx: np.ndarray) -> "RecordBlock":
        """The records ``idx`` in that order (copies)."""
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        names, name_off = _gather(self.names, self.name_off, idx)
        seq, seq_off = _gather(self.seq, self.seq_off, idx)
        qual = None if self.qual is None else _gather_same(self.qual, self.seq_off, seq_off, idx)
        return RecordBlock(names, name_off, seq, seq_off, qual, self.num[idx])

    @staticmethod
    def concat(blocks: list["RecordBlock"]) -> "RecordBlock":
        """The records of ``blocks`` one after the other."""
        blocks = [b for b in blocks if len(b)] or blocks[:1]
        if not blocks:
            return RecordBlock.empty()
        if len(blocks) == 1:
            return blocks[0]
        fastq = all(b.qual is not None for b in blocks)
        return RecordBlock(np.concatenate([b.names for b in blocks]),
                           _concat_offsets([b.name_off for b in blocks]),
                           np.concatenate([b.seq for b in blocks]),
                           _concat_offsets([b.seq_off for b in blocks]),
                           np.concatenate([b.qual for b in blocks]) if fastq else None,
                           np.concatenate([b.num for b in blocks]))

    def view(self) -> BlockView:
        return BlockView(self.names, self.name_off, self.seq, self.seq_off)

    def codes(self) -> np.ndarray:
        """The codes of the sequences (see ``encode``), with the offsets ``seq_off``; made once."""
        if self.encoded is None:
            self.encoded = encode_block(self.seq)
        return self.encoded

    def name(self, k: int) -> str:
        return self.names[self.name_off[k]:self.name_off[k + 1]].tobytes().decode("utf-8", "replace")

    def names_list(self) -> list[str]:
        text = self.names.tobytes()
        off = self.name_off.tolist()
        return [text[off[k]:off[k + 1]].decode("utf-8", "replace") for k in range(len(self))]

    def records(self) -> list[Record]:
        """One ``Record`` per record (for the paths that are not bulk)."""
        seq = self.seq.tobytes()
        qual = None if self.qual is None else self.qual.tobytes()
        so = self.seq_off.tolist()
        nums = self.num.tolist()
        return [Record(name, seq[so[k]:so[k + 1]], None if qual is None else qual[so[k]:so[k + 1]], nums[k])
                for k, name in enumerate(self.names_list())]
