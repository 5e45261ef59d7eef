"""``python -m ldpcore.cli``."""

import sys

from ldpcore.cli import main

sys.exit(main())
