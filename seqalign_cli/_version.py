"""The package's version, in one module that imports nothing: the package (``seqalign_cli.__version__``), the
build (``pyproject.toml``), the command line, ``info``, ``jit``'s first-run markers and ``--stats`` read it here."""

__version__ = "0.1.0"
