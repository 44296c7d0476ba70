"""Kernel GCUPS of the cuda backend by length, mode and gap model (GPU only).

Usage: python benchmarks/bench_gpu.py [--lengths 64,150,...] [--modes ...] [--gaps affine,linear] [--reps 5]

The timing code lives in seqalign_cli/families/pairwise/bench.py (shared with ``seqalign bench``).
"""

from seqalign_cli.families.pairwise.bench import main

if __name__ == "__main__":
    main()
