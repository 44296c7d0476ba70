"""The graph family (``seqalign graph``): reads aligned to a sequence graph (GFA1).

Its files, the same names in every family:

* ``inputs.py``: ``GraphInputs`` (light: no numpy);
* ``chunks.py``: ``graph_chunks``, the graph loaded once, then the reads in chunks (``GraphChunk``);
  ``chunks_gfa.py``: the GFA reader (``load_graph``: oriented, topologically sorted, spelled base by base);
* ``batch.py``: ``GraphBatch``, ``make_graph_batch``;
* ``results.py``: ``GraphAlignments``;
* ``formats.py``: the TSV and GAF formatters and writers;
* ``cpu.py``: ``CpuGraph``; ``cpu_dp.py``: its compiled dynamic programming;
* ``gpu.py``: ``CudaGraph``, ``HOOKS``, ``compile_checks`` (kernel ``kernels/graph.cu``), and its plan on the
  host (widths, stripes, sections, checkpoint budgets): no ``plan.py`` of its own (a family has a
  ``plan.py`` where its plan is a module of its own: pairwise, triplet);
* ``bench.py``: ``bench_run``, behind ``seqalign bench --family graph``.
"""
