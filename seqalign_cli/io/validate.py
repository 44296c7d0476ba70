"""What the readers accept, checked once per block of records, in compiled loops over whole buffers.

* Sequence letters: the IUPAC nucleotide codes A C G T U N R Y S W K M B D
  H V, and X (a masked base, as RepeatMasker's ``-x`` writes them), in
  either case. Anything else (digits, ``*``, gaps ``-`` and ``.``, the
  letters only proteins use: E F I J L O P Q Z, spaces inside a FASTQ
  sequence line, bytes outside ASCII) is an error naming the file, the
  record (number and name), the character and its position.
  With ``--alphabet protein`` (``io.alphabet``) the letters are the protein
  ones instead, and ``*``, E, F, I, J, L, O, P, Q, Z are accepted.
* FASTQ qualities: printable ASCII, ``!`` to ``~`` (33 to 126).
* Record names, for every output: no control character (bytes 0-31 and
  127: a NUL or an escape, which no output format can hold).
* Read names, only where the output is SAM or BAM (``sam_names``): at most
  254 characters of printable ASCII (``!`` to ``~``), not starting with
  ``@`` (the QNAME rule of the SAM specification).

The checks run over a block's buffers with branch-free loops that the
compiler vectorises (10 GB/s and more); only a block holding an error is walked
again to find the first offending byte. ``letter_message`` words the
message for the readers that hold sequences elsewhere (GFA segments).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..jit import nb
from . import alphabet

_JIT = dict(nogil=True, cache=True, boundscheck=False)

#: the accepted letters (either case); N, the other IUPAC codes and X count as N when scoring
LETTERS = "ACGTUNRYSWKMBDHVX"
#: how the accepted letters are named in messages
ACCEPTED = "IUPAC nucleotide codes (ACGTUN RYSWKMBDHV, X for a masked base, either case)"
#: bytes checked per step before looking for the first bad one
_STEP = 1 << 14
#: the longest read name SAM and BAM hold
SAM_NAME_MAX = 254
_U8 = np.uint8


@nb.njit(**_JIT)
def _letter_ok(c):
    """Whether byte c is an accepted letter, in 8-bit arithmetic (so that loops vectorise 32 bytes a step).

    Folded to upper case (c & 0xDF, which lands in 'A'..'Z' for letters only), the
    accepted letters are five ranges: A-D, G-H, K, M-N, R-Y.
    """
    u = c & _U8(0xDF)
    return ((_U8(u - _U8(65)) < _U8(4)) | (_U8(u - _U8(71)) < _U8(2)) | (u == _U8(75))
            | (_U8(u - _U8(77)) < _U8(2)) | (_U8(u - _U8(82)) < _U8(8)))


@nb.njit(**_JIT)
def _letters_bad(seq, a, b):
    """Whether seq[a:b] holds a byte that is not an accepted letter (no branch: vectorised)."""
    acc = False
    base = np.uint64(a)
    for q in range(np.uint64(b - a)):
        acc |= not _letter_ok(seq[base + q])
    return acc


def first_bad_letter(seq):
    """Index of the first byte of ``seq`` (uint8) that is not a letter of this run's alphabet, else -1."""
    if alphabet.current() == alphabet.PROTEIN:
        return alphabet.first_refused(seq, alphabet.PROTEIN_TABLE)
    return first_bad_nucleotide(seq)


@nb.njit(**_JIT)
def first_bad_nucleotide(seq):
    """Index of the first byte of ``seq`` (uint8) that is not an accepted nucleotide letter, else -1."""
    n = seq.shape[0]
    for a in range(0, n, _STEP):
        b = min(n, a + _STEP)
        if _letters_bad(seq, a, b):
            for i in range(a, b):
                if not _letter_ok(seq[i]):
                    return i
    return -1


@nb.njit(**_JIT)
def _quals_bad(qual, a, b):
    acc = False
    base = np.uint64(a)
    for q in range(np.uint64(b - a)):
        acc |= _U8(qual[base + q] - _U8(33)) > _U8(93)
    return acc


@nb.njit(**_JIT)
def first_bad_quality(qual):
    """Index of the first byte of ``qual`` outside '!'..'~' (33..126), else -1."""
    n = qual.shape[0]
    for a in range(0, n, _STEP):
        b = min(n, a + _STEP)
        if _quals_bad(qual, a, b):
            for i in range(a, b):
                if qual[i] < 33 or qual[i] > 126:
                    return i
    return -1


@nb.njit(**_JIT)
def first_control(names):
    """Index of the first control byte (0-31, 127) in ``names``, else -1."""
    for i in range(names.shape[0]):
        c = names[i]
        if c < 32 or c == 127:
            return i
    return -1


@nb.njit(**_JIT)
def first_bad_sam_name(names, name_off, num, every):
    """(record, byte offset in its name or -1 for its length) of the first name SAM cannot hold, else (-1, 0).

    Only the records whose number ``num`` is 1 modulo ``every`` are checked
    (every 2: the queries of an interleaved file).
    """
    for k in range(name_off.shape[0] - 1):
        if every > 1 and (num[k] - 1) % every != 0:
            continue
        a = name_off[k]
        b = name_off[k + 1]
        if b - a > SAM_NAME_MAX:
            return k, -1
        for i in range(a, b):
            c = names[i]
            if c < 33 or c > 126 or (i == a and c == 64):
                return k, i - a
    return -1, 0


# ------------------------------------------------------------------ messages

def shown_char(c: int) -> str:
    """A byte as a message quotes it: 'E', or its escape and code for anything not printable."""
    if 33 <= c <= 126:
        return repr(chr(c))
    if c == 32:
        return "' ' (a space)"
    return f"{ascii(chr(c)) if c < 128 else hex(c)} (byte {c})"


def shown_name(name: str, width: int = 40) -> str:
    """A record name as a message shows it: escaped where not printable, shortened past ``width``."""
    text = name if name.isprintable() else ascii(name)[1:-1]
    return text if len(text) <= width else text[:width - 3] + "..."


def _hint(c: int, fasta: bool) -> str:
    ch = chr(c)
    if fasta and ch in "@+":
        return "; a line starting with '@' or '+' inside a FASTA sequence: a FASTQ record in a FASTA file?"
    if ch in "-.":
        return "; a gap: give the sequences without alignment gaps"
    if alphabet.current() == alphabet.PROTEIN:
        return ""
    if ch == "*":
        return "; a stop codon or a missing sequence (the alphabet is DNA; proteins: --alphabet protein)"
    if ch.isdigit():
        return "; digits: numbered sequence lines are not FASTA"
    if ch.upper() in "EFIJLOPQZ":
        return "; a letter of protein sequences only (the alphabet is DNA; proteins: --alphabet protein)"
    return ""


def letter_message(c: int, position: int, fasta: bool = False) -> str:
    """The message for byte ``c`` at 1-based ``position`` of a sequence (the letters of this run's alphabet)."""
    accepted = alphabet.PROTEIN_ACCEPTED if alphabet.current() == alphabet.PROTEIN else ACCEPTED
    return f"invalid sequence character {shown_char(c)} at position {position}: sequences take {accepted}" \
        f"{_hint(c, fasta)}"


def sam_name_message(name: str) -> str:
    """Why SAM/BAM cannot hold the read name ``name`` (one that ``first_bad_sam_name`` refused)."""
    if len(name.encode()) > SAM_NAME_MAX:
        return (f"read name of {len(name.encode())} bytes: SAM/BAM hold read names of at most {SAM_NAME_MAX} "
                f"(write TSV or PAF, or shorten the names)")
    bad = next((i for i, ch in enumerate(name) if not 33 <= ord(ch) <= 126), None)
    if bad is None:
        where = "begins with '@'"
    else:
        ch = name[bad]
        where = f"holds {shown_char(ord(ch)) if ord(ch) < 128 else repr(ch)} at position {bad + 1}"
    return (f"read name {where}, which a SAM/BAM read name cannot (printable ASCII '!' to '~', not '@' "
            f"first); write TSV or PAF, or rename the reads")


def record_label(num: int, name: str) -> str:
    return f"{num} ({shown_name(name)})" if num else shown_name(name)


def sam_name_error(block, every: int = 1) -> tuple[int, str] | None:
    """(record index, message) of the first name of ``block`` SAM cannot hold (records 1, 1 + every, ...)."""
    if not len(block):
        return None
    k, _ = first_bad_sam_name(block.names, block.name_off, block.num, every)
    return None if k < 0 else (int(k), sam_name_message(block.name(k)))


def check_block(block, path: str, fasta: bool, sam_names: int = 0):
    """Raise the error of the first record of ``block`` that breaks a rule (see the module), if any.

    ``sam_names``: 0 leaves names alone; k checks the names of records 1, 1 + k, 1 + 2k, ...
    (by record number) against SAM's rules. Within a record the name comes first (control characters,
    then SAM's rules), then its letters, then its quality, as in the file.
    """
    found = []  # (record index, order within the record, message)
    i = int(first_control(block.names))
    if i >= 0:  # a NUL, an escape: no output format holds it (a TSV row, a SAM or PAF field, a GAF line)
        k = int(np.searchsorted(block.name_off, i, "right")) - 1
        found.append((k, 0, f"control character {shown_char(int(block.names[i]))} at position "
                            f"{i - int(block.name_off[k]) + 1} of the record name: no output format can hold it"))
    if sam_names:
        bad = sam_name_error(block, sam_names)
        if bad is not None:
            found.append((bad[0], 1, bad[1]))
    i = int(first_bad_letter(block.seq))
    if i >= 0:
        k = int(np.searchsorted(block.seq_off, i, "right")) - 1
        found.append((k, 2, letter_message(int(block.seq[i]), i - int(block.seq_off[k]) + 1, fasta)))
    if block.qual is not None:
        i = int(first_bad_quality(block.qual))
        if i >= 0:
            k = int(np.searchsorted(block.seq_off, i, "right")) - 1
            found.append((k, 3, f"quality character {shown_char(int(block.qual[i]))} at position "
                                f"{i - int(block.seq_off[k]) + 1} is not printable ASCII ('!' to '~', 33 to 126)"))
    if found:
        k, _, msg = min(found)
        raise InputError(msg, path=path, record=record_label(int(block.num[k]), block.name(k)))
