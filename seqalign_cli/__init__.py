"""seqalign: exact pairwise alignment for the command line, on CPU and GPU."""

__version__ = "0.1.0"

from .api import (  # noqa: E402  (light: numpy and the engines load when a function is called)
    GraphAlignment, PairAlignment, TripletAlignment, align_graph, align_pairs, align_triplets, iter_graph,
    iter_pairs, iter_triplets,
)

__all__ = ["GraphAlignment", "PairAlignment", "TripletAlignment", "align_graph", "align_pairs", "align_triplets",
           "iter_graph", "iter_pairs", "iter_triplets", "__version__"]
