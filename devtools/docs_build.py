"""The script ``mkdocs.yml`` gives the gen-files plugin: writes the generated pages.

It runs inside ``mkdocs build`` (``make docs``); the pages themselves are made by
:mod:`devtools.docs_pages`, which the tests call too.
"""

from __future__ import annotations

import mkdocs_gen_files

from devtools.docs_pages import generate, write_assets

generate(mkdocs_gen_files.open)
write_assets(mkdocs_gen_files.open)
