"""The search family (``seqalign search``): queries against one database, each query's best hits.

Its files, the same names in every family:

* ``inputs.py``: ``SearchInputs`` (light: no numpy);
* ``chunks.py``: ``search_chunks``, the database read once, then whole queries a chunk (``SearchChunk``);
* ``batch.py``: ``SearchBatch`` and the ``Database``;
* ``results.py``: ``SearchHits``;
* ``formats.py``: the BLAST tabular, TSV and PAF writers;
* ``cpu.py``: ``CpuSearch`` (two passes through the pairwise CPU engine; ``kept_hits``, the second pass of
  every engine);
* ``gpu.py``: ``CudaSearch``, ``HOOKS``, ``compile_checks`` (kernel ``kernels/search.cu``), and its plan
  on the host (profiles, work items, 16-bit packing): a few functions, so no ``plan.py`` of its own (a
  family has a ``plan.py`` where its plan is a module of its own: pairwise, triplet).

It has no ``bench.py``: ``seqalign bench`` has no search benchmark.
"""
