"""Entry point for ``python -m seqalign_cli``."""

from .cli import main

if __name__ == "__main__":
    main()
