"""What the test files share: oracles, reference readers, generated inputs and small helpers.

Tests import these as ``from support.oracles import ...`` or ``from support import clidata``:
pyproject.toml's ``[tool.pytest.ini_options]`` puts ``tests/`` on the path (``pythonpath``), so no
test file edits ``sys.path``. The fixtures stay in ``tests/conftest.py``; what they are built from
(the backend parameters, ``make_backend``) is in ``support.backends``, for the test files that
parametrize or build backends themselves.

* ``oracles``, ``graph_oracles``, ``triplet_oracles``: independent references for the pairwise,
  graph and triplet families (nothing there runs an engine of seqalign_cli);
* ``fastx_reference``, ``gfa_reference``, ``gaf``: readers of FASTA/FASTQ, GFA and GAF written
  apart from the package's own;
* ``fuzz_inputs``: generated and mutated reader inputs, shared with ``benchmarks/fuzz_readers.py``;
* ``generators``: random pairs and scorings; ``clidata``: the small data sets of ``tests/data/cli``;
* ``helpers``: result comparison, TSV parsing, a pretend GPU engine, the GPUs at hand;
* ``fake_cupy``: a stand-in for CuPy under which the GPU engines' constructors run without a GPU;
* ``numpy_cupy``: numpy standing in for CuPy deep enough for an engine's ``submit``, its kernels
  recording their launches;
* ``samtools_checks``: samtools, or pysam's built-in copy, on written SAM/BAM;
* ``backends``: the backend parameters (cpu, and cuda where a GPU is usable) and ``make_backend``.
"""
