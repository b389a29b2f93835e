"""`python -m mbench ARGS`: the bundled mbench command (see _cli.py)."""
import sys

from ._cli import main

sys.exit(main())
