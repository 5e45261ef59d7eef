"""What SHE's exact noise costs a client, against the floating-point sampler it replaced.

SHE's randomizer draws its discrete Laplace noise from uniform integers alone
(``ldpcore.protocols.exact_noise``), so its output law is exact (δ = 0). The sampler it
replaced took the inverse CDF of 53-bit uniforms: two geometric draws per coordinate,
``⌊ln U / ln r⌋``, written out below as the reference. One client report at d = 64 and
a batch of 20,000 at d = 64 and d = 1,024, from a numpy Generator and from the OS's
secure source; best of 5.

    python benchmarks/bench_exact_noise.py
"""

from __future__ import annotations

import numpy as np
from _common import best_of

from ldpcore.protocols import SHE
from ldpcore.protocols.she import GRID_STEPS
from ldpcore.rng import SecureRandom


def float_noise(source, epsilon: float, shape: tuple[int, int]) -> np.ndarray:
    """The replaced sampler: a difference of two geometric draws by the inverse CDF."""
    rate = epsilon / (2.0 * GRID_STEPS)

    def geometric() -> np.ndarray:
        return np.floor(np.log(1.0 - np.asarray(source.random(shape))) / -rate)

    return geometric() - geometric()


def main() -> None:
    print("| users × d | source | exact (ms) | float (ms) | ratio |")
    print("|---|---|---|---|---|")
    for users, d in ((1, 64), (20_000, 64), (20_000, 1_024)):
        she = SHE(epsilon=1.0, domain_size=d)
        for label, source in (("numpy", np.random.default_rng(0)), ("secure", SecureRandom())):
            repeat = 5 if users * d <= 2_000_000 else 2
            shape = (users, d)
            exact = best_of(
                lambda she=she, source=source, shape=shape: she.noise_steps(source, shape),
                repeat=repeat,
            )
            old = best_of(
                lambda source=source, shape=shape: float_noise(source, 1.0, shape), repeat=repeat
            )
            print(
                f"| {users:,} × {d:,} | {label} | {exact * 1e3:.3f} | {old * 1e3:.3f} | "
                f"{exact / old:.1f}× |"
            )


if __name__ == "__main__":
    main()
