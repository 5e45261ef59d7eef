"""A poisoned trial against an honest one: the cost of fake users.

Target: a trial with fake users (any attack, β = 0.05, 3 targets) costs within 1.5× an
honest trial of the same protocol at d = 1,024 (n = 10⁶, ε = 1, Zipf s = 1.5): the fake
reports' support counts are drawn exactly in O(d), like the honest ones.

Run: ``.venv/bin/python benchmarks/bench_attacks.py [--repeat 7]``. Prints a Markdown
table of ms per trial (best of ``repeat``) and the ratios, all from one run. The targets
are chosen once and given, as ``run_attack`` gives them to every trial.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import best_of, zipf_counts

from ldpcore import get_protocol, protocol_names
from ldpcore.attacks import AttackSpec, attack_names, poison
from ldpcore.attacks.fakes import described_attacks
from ldpcore.attacks.gains import choose_targets
from ldpcore.attacks.ranges import plan_attack, poison_tree

D, N = 1024, 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--protocols", default=",".join(protocol_names()))
    args = parser.parse_args()
    counts = zipf_counts(D, N)
    kinds = attack_names()
    print(f"\n### A poisoned trial, d = {D:,}, n = 1e6, ε = 1, β = 0.05, 3 targets (ms)\n")
    print("| protocol | honest | " + " | ".join(kinds) + " | worst ratio | target |")
    print("|---" * (len(kinds) + 4) + "|")
    for name in args.protocols.split(","):
        print(row(name, counts, kinds, args.repeat), flush=True)


def row(name: str, counts: np.ndarray, kinds: tuple[str, ...], repeat: int) -> str:
    """One protocol's line: honest and poisoned ms per trial, and the worst ratio.

    A tree's fake users push a range up (three consecutive values here); the Square
    Wave's and the Haar wavelet's are not modelled, and their line says so.
    """
    protocol = get_protocol(name, epsilon=1.0, domain_size=D)
    if not protocol.support_view and not protocol.composite:
        return f"| {name} | — | " + " | ".join("—" for _ in kinds) + " | not modelled | — |"
    rng = np.random.default_rng(0)
    number = 5 if name in {"SS", "HR"} else 50
    sample = protocol.sample_support_counts if protocol.support_view else protocol.sample_tallies
    honest = best_of(lambda: sample(counts, rng), repeat=repeat, number=number)
    targets = choose_targets(3, D, np.random.default_rng(1))
    start = int(targets[0])
    times = []
    offered = {"ria", *described_attacks(protocol)} if protocol.support_view else set(kinds)
    for kind in kinds:
        if kind not in offered:  # SHE takes no maximal-gain attack: no bound on it
            times.append(float("nan"))
            continue
        attack = AttackSpec(kind, beta=0.05, targets=3)
        if protocol.support_view:
            draw = lambda a=attack: poison(protocol, counts, a, rng, targets=targets)  # noqa: E731
        else:  # the plan once, as run_attack makes it once per run
            plan = plan_attack(
                protocol,
                start,
                start + 3,
                fakes=attack.fake_users(int(counts.sum())),
                honest=int(counts.sum()),
                frequencies=counts / counts.sum(),
            )
            draw = lambda a=attack, plan=plan: poison_tree(  # noqa: E731
                protocol, counts, a, rng, start=start, stop=start + 3, plan=plan
            )
        times.append(best_of(draw, repeat=repeat, number=number))
    cells = " | ".join("—" if np.isnan(t) else f"{t * 1e3:.3f}" for t in times)
    worst = np.nanmax(times) / honest
    return f"| {name} | {honest * 1e3:.3f} | {cells} | {worst:.2f}× | ≤ 1.5× |"


if __name__ == "__main__":
    main()
