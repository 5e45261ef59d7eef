"""Put the toy protocol, method and query kind in the real registries (``make test-toys``).

The same swap test_extending's fixture makes for one test, made for a whole run and in
every Python process of it: ``tests/conftest.py`` calls :func:`register_toys` in the
test process, and ``tests/toys_site/sitecustomize.py`` in every process started with
``PYTHONPATH=tests/toys_site`` (the command line the tests run, the app's simulation
workers, Dask workers), so no process holds a registry without the toys.
"""

from __future__ import annotations

import os
from types import MappingProxyType

#: Set to 1 to run with the toys in the real registries.
TOYS_VARIABLE = "LDPCORE_TEST_TOYS"


def toys_wanted() -> bool:
    """Whether this run registers the toys in the real registries."""
    return os.environ.get(TOYS_VARIABLE) == "1"


def register_toys() -> None:
    """Add PadRR, Shrink and blocks to the registries (once; later calls change nothing)."""
    from toy_method import Shrink  # noqa: PLC0415
    from toy_protocol import PAD_RR_FORMAT, PadRR, pad_rr_guess_rate  # noqa: PLC0415
    from toy_query import BlocksQuery  # noqa: PLC0415

    import ldpcore.attacks.guessing  # noqa: PLC0415
    import ldpcore.collection.formats  # noqa: PLC0415
    import ldpcore.postprocess  # noqa: PLC0415
    import ldpcore.protocols  # noqa: PLC0415
    import ldpcore.queries.specs  # noqa: PLC0415

    protocols = {**ldpcore.protocols.PROTOCOLS, "PadRR": PadRR}
    methods = {**ldpcore.postprocess.METHODS, "Shrink": Shrink}
    kinds = {**ldpcore.queries.specs.QUERY_KINDS, "blocks": BlocksQuery}
    ldpcore.protocols.PROTOCOLS = MappingProxyType(protocols)
    ldpcore.postprocess.METHODS = MappingProxyType(methods)
    ldpcore.queries.specs.QUERY_KINDS = MappingProxyType(kinds)
    guesses = {**ldpcore.attacks.guessing.GUESS_RATES, PadRR: pad_rr_guess_rate}
    ldpcore.attacks.guessing.GUESS_RATES = MappingProxyType(guesses)
    formats = {**ldpcore.collection.formats.REPORT_FORMATS, PadRR: PAD_RR_FORMAT}
    ldpcore.collection.formats.REPORT_FORMATS = MappingProxyType(formats)
