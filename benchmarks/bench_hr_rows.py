"""HR's row MLE and IBU: Newton steps by conjugate gradients against EM's diagonal step.

Run: ``.venv/bin/python benchmarks/bench_hr_rows.py``. At n = 10⁶, ε ∈ {1, 4}, Zipf
s = 1.5 and d ∈ {1,024, 16,384, 100,000}, one trial's row histogram is climbed to the
MLE (tolerances 1e-15 / 1e-13) twice in the same process: with the model's Newton step
(two FWHTs per Hessian product, issue 37) and with only EM's diagonal-curvature step
(the path before it). Best of three each; the ratio is of those two figures. The last
two columns are what the MLE method itself takes, EM starting at the projected Base
estimate rather than uniform (session 17), and the ratio of the Newton–CG column to it.
With ``--ibu`` it prints instead IBU's table: ``IBU()`` (warm: the projected Base
estimate) against ``IBU(warm_start=False)`` (uniform, the papers' start) on the same rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from _common import best_of, zipf_counts

from ldpcore.postprocess.ibu import IBU, run_em
from ldpcore.postprocess.mle import maximum_likelihood
from ldpcore.protocols import get_protocol
from ldpcore.protocols.likelihoods import HadamardRowModel


class _DiagonalOnly(HadamardRowModel):
    """The same likelihood with no Newton step: EM and its diagonal step only."""

    def newton_step(self, pi: np.ndarray, multiplier: np.ndarray) -> None:
        return None


N_USERS = 10**6


def _cases() -> Iterator[tuple[int, float, Any, np.ndarray, np.ndarray, int]]:
    """Every (d, ε) of the tables: HR there, one trial's rows and Base estimate, repeats."""
    for d in (1024, 16_384, 100_000):
        for epsilon in (1.0, 4.0):
            protocol = get_protocol("HR", epsilon=epsilon, domain_size=d)
            rows = protocol.sample_tallies(zipf_counts(d, N_USERS), 1).astype(float)
            estimate = protocol.estimate(protocol.support_from_tallies(rows), N_USERS)
            yield d, epsilon, protocol, rows, estimate, 3 if d < 50_000 else 1


def main() -> None:
    """Print the Markdown table."""
    print(
        "| d | ε | Newton–CG (ms) | steps | diagonal only (ms) | steps | ratio | max |Δπ| "
        "| from projected Base (ms) | ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d, epsilon, protocol, rows, estimate, repeat in _cases():
        fast = HadamardRowModel(rows, order=protocol.order, domain_size=d, p=protocol.p)
        slow = _DiagonalOnly(rows, order=protocol.order, domain_size=d, p=protocol.p)
        a = run_em(fast, tolerance=1e-15, kkt_tolerance=1e-13)
        b = run_em(slow, tolerance=1e-15, kkt_tolerance=1e-13)
        t_fast = best_of(
            lambda m=fast: run_em(m, tolerance=1e-15, kkt_tolerance=1e-13), repeat=repeat
        )
        t_slow = best_of(
            lambda m=slow: run_em(m, tolerance=1e-15, kkt_tolerance=1e-13), repeat=repeat
        )
        t_base = best_of(lambda m=fast, e=estimate: maximum_likelihood(m, start=e), repeat=repeat)
        gap = float(np.abs(a.frequencies - b.frequencies).max())
        print(
            f"| {d:,} | {epsilon:g} | {t_fast * 1e3:.0f} | {a.iterations} | "
            f"{t_slow * 1e3:.0f} | {b.iterations} | {t_slow / t_fast:.0f}× | {gap:.1e} "
            f"| {t_base * 1e3:.0f} | {t_fast / t_base:.1f}× |"
        )


def ibu_table() -> None:
    """Print IBU's table: warm against cold on the same rows."""
    print("| d | ε | from uniform (ms) | warm (ms) | ratio | max |Δπ| |")
    print("|---:|---:|---:|---:|---:|---:|")
    n = N_USERS
    for d, epsilon, protocol, rows, estimate, repeat in _cases():

        def cold(e: np.ndarray = estimate, r: np.ndarray = rows, p: object = protocol) -> object:
            return IBU(warm_start=False)(e, protocol=p, n=n, tallies=r)  # type: ignore[arg-type]

        def warm(e: np.ndarray = estimate, r: np.ndarray = rows, p: object = protocol) -> object:
            return IBU()(e, protocol=p, n=n, tallies=r)  # type: ignore[arg-type]

        gap = float(np.abs(np.asarray(cold()) - np.asarray(warm())).max())
        t_cold, t_warm = best_of(cold, repeat=repeat), best_of(warm, repeat=repeat)
        print(
            f"| {d:,} | {epsilon:g} | {t_cold * 1e3:.0f} | {t_warm * 1e3:.0f} | "
            f"{t_cold / t_warm:.1f}× | {gap:.1e} |"
        )


if __name__ == "__main__":
    import sys

    if "--ibu" in sys.argv[1:]:
        ibu_table()
    else:
        main()
