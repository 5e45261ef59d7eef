"""The same LDP workload in ldpcore and in two public libraries, in one run.

Workload: Zipf s = 1.5, d = 1024, ε = 1, one trial of randomize +
aggregate + estimate, n = 1e5 and 1e6, for GRR, OLH and OUE.

Peers: pure-ldp and multi-freq-ldpy, installed by the optional extra
``pip install -e ".[bench]"`` (never a runtime dependency). Both randomize one user
per Python call and aggregate OLH with one Python-level hash per (user, value), so a
full run at n = 1e6 would take hours. Each peer run is therefore timed on the first
``m`` users until ``--budget`` seconds pass and scaled linearly to ``n`` (their cost
is linear in n by construction); the table says "measured" or "extrapolated from m".

Run: ``.venv/bin/python benchmarks/compare_peers.py [--budget 20]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable

import numpy as np
from _common import zipf_counts

from ldpcore import get_protocol

D, EPSILON = 1024, 1.0


def ours(name: str, counts: np.ndarray, sampler: str) -> float:
    protocol = get_protocol(name, epsilon=EPSILON, domain_size=D)
    n = int(counts.sum())
    start = time.perf_counter()
    support = protocol.sample_support_counts(counts, 0, sampler=sampler)  # type: ignore[arg-type]
    protocol.estimate(support, n)
    return time.perf_counter() - start


def _timed_prefix(
    per_user: Callable[[int], None], finish: Callable[[], None], values: np.ndarray, budget: float
) -> tuple[float, int]:
    """Run ``per_user`` on users in order until the budget is spent; return (seconds, users)."""
    start = time.perf_counter()
    done = 0
    for value in values.tolist():
        per_user(value)
        done += 1
        if done % 256 == 0 and time.perf_counter() - start > budget:
            break
    finish()
    return time.perf_counter() - start, done


def pure_ldp_run(name: str, values: np.ndarray, budget: float) -> tuple[float, int]:
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    # pure-ldp's default index mapper is x - 1 (1-based values), so shift ours.
    if name == "GRR":
        client, server = DEClient(EPSILON, D), DEServer(EPSILON, D)
    elif name == "OLH":
        client, server = LHClient(EPSILON, D, use_olh=True), LHServer(EPSILON, D, use_olh=True)
    else:
        client, server = UEClient(EPSILON, D, use_oue=True), UEServer(EPSILON, D, use_oue=True)
    return _timed_prefix(
        lambda v: server.aggregate(client.privatise(v + 1)),
        lambda: [server.estimate(i) for i in range(1, D + 1)],
        values,
        budget,
    )


def multi_freq_run(name: str, values: np.ndarray, budget: float) -> tuple[float, int]:
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, UE

    reports: list[object] = []
    if name == "GRR":
        client = lambda v: reports.append(GRR.GRR_Client(v, D, EPSILON))  # noqa: E731
        finish = lambda: GRR.GRR_Aggregator_MI(reports, D, EPSILON)  # noqa: E731
    elif name == "OLH":
        client = lambda v: reports.append(LH.LH_Client(v, D, EPSILON, True))  # noqa: E731
        finish = lambda: LH.LH_Aggregator_MI(reports, D, EPSILON, True)  # noqa: E731
    else:
        client = lambda v: reports.append(UE.UE_Client(v, D, EPSILON, True))  # noqa: E731
        finish = lambda: UE.UE_Aggregator_MI(reports, EPSILON, True)  # noqa: E731
    return _timed_prefix(client, finish, values, budget)


def rows(sizes: Iterable[int], budget: float) -> None:
    print(
        "| protocol | n | ldpcore fast (s) | ldpcore per-user (s) | pure-ldp (s) | "
        "× ours per-user | multi-freq-ldpy (s) | × ours per-user |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        counts = zipf_counts(D, n)
        values = np.random.default_rng(0).permutation(np.repeat(np.arange(D), counts))
        for name in ("GRR", "OLH", "OUE"):
            fast = ours(name, counts, "fast")
            per_user = ours(name, counts, "per-user")
            cells = []
            for run in (pure_ldp_run, multi_freq_run):
                seconds, done = run(name, values, budget)
                total = seconds * n / done
                note = "" if done == n else f" (extrapolated from {done:,})"
                cells.append(f"{total:,.1f}{note} | {total / per_user:,.0f}×")
            print(f"| {name} | {n:.0e} | {fast:.4f} | {per_user:.2f} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=20.0, help="seconds per peer run")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    args = parser.parse_args()
    rows(args.sizes, args.budget)


if __name__ == "__main__":
    main()
