"""seqalign: exact pairwise alignment for the command line, on CPU and GPU."""

from ._version import __version__
from .api import (  # light: numpy and the engines load when a function is called
    GraphAlignment, PairAlignment, SearchHit, TripletAlignment, align_graph, align_pairs, align_triplets,
    iter_graph, iter_pairs, iter_search, iter_triplets, search,
)

__all__ = ["GraphAlignment", "PairAlignment", "SearchHit", "TripletAlignment", "align_graph", "align_pairs",
           "align_triplets", "iter_graph", "iter_pairs", "iter_search", "iter_triplets", "search", "__version__"]
