"""``python -m devtools.claims [--write]``."""

from devtools.claims import main

raise SystemExit(main())
