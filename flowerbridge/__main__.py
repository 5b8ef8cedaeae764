"""``python -m flowerbridge`` is the ``flowerbridge`` command."""

import sys

from .cli import main

sys.exit(main())
