"""``python -m unolan``: the ``uno`` command."""

import sys

from unolan.cli import main

sys.exit(main())
