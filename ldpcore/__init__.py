"""ldpcore: frequency oracles under local differential privacy and their post-processing.

The public API is re-exported here; implementation lives in the submodules.
"""

from __future__ import annotations

from ldpcore import bounds
from ldpcore.protocols import (
    BLH,
    GRR,
    OLH,
    OUE,
    PROTOCOLS,
    SUE,
    FrequencyOracle,
    HadamardResponse,
    HashedReports,
    SubsetSelection,
    get_protocol,
    protocol_names,
)
from ldpcore.rng import as_generator, trial_generators

__version__ = "0.1.0"

__all__ = [
    "BLH",
    "GRR",
    "OLH",
    "OUE",
    "PROTOCOLS",
    "SUE",
    "FrequencyOracle",
    "HadamardResponse",
    "HashedReports",
    "SubsetSelection",
    "__version__",
    "as_generator",
    "bounds",
    "get_protocol",
    "protocol_names",
    "trial_generators",
]
