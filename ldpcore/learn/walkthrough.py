"""A small population through one protocol, step by step (the Learn page's engine).

Each user's real report is produced by the protocol's client randomizer and read back
by the server's own aggregation, one report at a time, so the table shows exactly
which values every report supports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore.errors import InputError
from ldpcore.postprocess import get_method, method_names
from ldpcore.protocols import FrequencyOracle, get_protocol


@dataclass(frozen=True)
class Walkthrough:
    """Every step for one small population.

    Attributes
    ----------
    protocol : FrequencyOracle
    reports : DataFrame
        One row per user: ``user, true value, report, supports``.
    support_counts : ndarray
        ``c_v`` for each value.
    base : ndarray
        The Base estimate.
    methods : DataFrame
        One column per method, one row per value, plus ``truth``.
    """

    protocol: FrequencyOracle
    reports: pd.DataFrame
    support_counts: NDArray[np.int64]
    base: NDArray[np.float64]
    methods: pd.DataFrame


def walkthrough(
    *,
    protocol: str,
    epsilon: float,
    values: NDArray[np.int64],
    labels: tuple[str, ...],
    seed: int = 0,
) -> Walkthrough:
    """Randomize ``values`` (0-based) under ``protocol`` and post-process the result."""
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=len(labels))
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        raise InputError("add at least one user")
    rng = np.random.default_rng(seed)
    reports = oracle.randomize(values, rng)
    rows = []
    support = np.zeros(len(labels), dtype=np.int64)
    for user in range(values.size):
        text, single = oracle.describe_report(reports, user)
        supported = oracle.aggregate(single)
        support += supported
        rows.append(
            {
                "user": user + 1,
                "true value": labels[values[user]],
                "report": text,
                "supports": ", ".join(labels[v] for v in np.flatnonzero(supported)) or "(nothing)",
            }
        )
    n = values.size
    base = oracle.estimate(support, n)
    truth = np.bincount(values, minlength=len(labels)) / n
    outputs = {"value": list(labels), "truth": truth}
    for name in method_names():
        outputs[name] = get_method(name)(base, protocol=oracle, n=n)
    return Walkthrough(oracle, pd.DataFrame(rows), support, base, pd.DataFrame(outputs))
