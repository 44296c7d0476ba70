"""The pairwise family (``seqalign pair``): pairs of sequences, each aligned exactly (global, semi-global,
glocal, local).

Its files, the same names in every family:

* ``inputs.py``: ``PairInputs`` (light: no numpy);
* ``chunks.py``: ``pair_chunks``, the pairings (zip, cross, interleaved, a pairs file with regions), the
  lockstep readers' ``_Records`` the other families' readers share; ``chunks_mapping.py``: both strands of
  a pair and a query's primary record (``PairChunk.finish``);
* ``batch.py``: ``PairBatch``, ``make_batch``, and the pairs' lane groups (``length_order``, ``pack_groups``);
* ``results.py``: ``Alignments`` (the search family's hits hold one), ``PairView``, ``Role``;
* ``formats.py``: TSV (its formatter and writer); ``formats_paf.py``, ``formats_blast.py`` (BLAST tabular),
  ``formats_sam.py`` (SAM and BAM, formatted in bulk), ``formats_readgroup.py`` (``-R``);
* ``cpu.py``: ``CpuPairwise``; ``cpu_dp.py`` (the recurrence, its lanes and the checkpointed route),
  ``cpu_diagonal.py`` (the diagonal loop in LLVM vectors), ``cpu_long_pair.py`` (long pairs, SIMD inside
  the pair), ``cpu_striped.py`` and ``cpu_striped_trace.py`` (Farrar's striped vectors for matrices);
* ``plan.py``: the GPU plan on the host (the shape table, each batch's plan; compiled, no device needed);
* ``gpu.py``: ``CudaPairwise``, ``routes``, ``HOOKS``, ``compile_checks`` (kernels
  ``kernels/pairwise_subwarp.cu``, ``kernels/pairwise_warp.cu``); ``gpu_subwarp.py``, ``gpu_warp.py``: their
  launches;
* ``bench.py``: ``run``, behind ``seqalign bench`` (``--family pairwise``).
"""
