"""PAF writer of pairs: the 12 standard columns plus cg:Z (CIGAR), AS:i (score), NM:i.

A pair without alignment keeps its names and lengths, with strand '*' and
zero spans, like an unmapped PAF line. The rows of a chunk are formatted in
one compiled call (``formatting``).
"""

from __future__ import annotations

from ..formatting import format_paf
from .text import TextWriter


class PafWriter(TextWriter):
    rows = staticmethod(format_paf)
