"""The triplet family (``seqalign triplet``): exact three-way alignment of three sequences.

Its files, the same names in every family:

* ``inputs.py``: ``TripletInputs`` (light: no numpy);
* ``chunks.py``: ``triplet_chunks``, three files in lockstep or one interleaved (``TripletChunk``);
* ``batch.py``: ``TripletBatch``, ``make_triplets``;
* ``results.py``: ``TripletAlignments``, ``Column``, ``opening_costs``;
* ``formats.py``: the TSV and MAF formatters and writers;
* ``cpu.py``: ``CpuTriplet``; ``cpu_cube.py`` (linear gaps), ``cpu_affine.py`` (affine gaps),
  ``cpu_checkpoint.py`` (the checkpointed traceback's plan);
* ``plan.py``: the GPU plan on the host (shapes, tiles, the tile wave, traceback windows; no device needed);
* ``gpu.py``: ``CudaTriplet``, ``HOOKS``, ``compile_checks`` (kernels ``kernels/triplet.cu``,
  ``kernels/triplet_affine.cu``); ``gpu_affine.py``: the affine kernel's plan and launches;
* ``bench.py``: ``bench_run``, behind ``seqalign bench --family triplet``.
"""
