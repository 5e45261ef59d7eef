"""ldpcore: frequency oracles under local differential privacy and their post-processing.

The public API is re-exported here; implementation lives in the submodules. The
protocols load with the package; experiments, methods, comparisons and advice load
on first use (``ldpcore.run`` imports :mod:`ldpcore.experiments.trials` then), so that
``import ldpcore`` and the command line's ``--help`` stay quick.

Examples
--------
>>> import ldpcore
>>> config = ldpcore.ExperimentConfig(dataset="zipf:d=32,s=1.5", n=10_000, protocol="OLH",
...                                   epsilon=1.0, methods=("Base", "Norm-Sub"), trials=5)
>>> list(ldpcore.run(config).summary["method"])
['Base', 'Norm-Sub']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    UnaryEncoding,
    get_protocol,
    protocol_names,
)
from ldpcore.rng import as_generator, trial_generators

if TYPE_CHECKING:
    from ldpcore.advice import choose_epsilon, recommend
    from ldpcore.advice.verdicts import verdict
    from ldpcore.errors import InputError
    from ldpcore.experiments.config import ExperimentConfig
    from ldpcore.experiments.sweeps import sweep
    from ldpcore.experiments.trials import ExperimentResult, run
    from ldpcore.postprocess import METHODS, get_method, method_names
    from ldpcore.stats.compare import compare

__version__ = "0.1.0"

#: Public names loaded on first use, and the module each comes from.
_LAZY = {
    "ExperimentConfig": "ldpcore.experiments.config",
    "ExperimentResult": "ldpcore.experiments.trials",
    "run": "ldpcore.experiments.trials",
    "sweep": "ldpcore.experiments.sweeps",
    "METHODS": "ldpcore.postprocess",
    "get_method": "ldpcore.postprocess",
    "method_names": "ldpcore.postprocess",
    "compare": "ldpcore.stats.compare",
    "verdict": "ldpcore.advice.verdicts",
    "recommend": "ldpcore.advice",
    "choose_epsilon": "ldpcore.advice",
    "InputError": "ldpcore.errors",
}


def __getattr__(name: str) -> Any:
    # PEP 562: import the defining module when one of its public names is first used.
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ldpcore' has no attribute {name!r}")


__all__ = [
    "BLH",
    "GRR",
    "METHODS",
    "OLH",
    "OUE",
    "PROTOCOLS",
    "SUE",
    "ExperimentConfig",
    "ExperimentResult",
    "FrequencyOracle",
    "HadamardResponse",
    "HashedReports",
    "InputError",
    "SubsetSelection",
    "UnaryEncoding",
    "__version__",
    "as_generator",
    "bounds",
    "choose_epsilon",
    "compare",
    "get_method",
    "get_protocol",
    "method_names",
    "protocol_names",
    "recommend",
    "run",
    "sweep",
    "trial_generators",
    "verdict",
]
