"""seqalign: exact pairwise alignment for the command line, on CPU and GPU."""

__version__ = "0.1.0"
