"""What a simulation will cost before it starts: measured seconds per trial.

A trial costs the protocol's sampler with its Base estimate, plus each method on top;
a run adds its own cost per value and method (:data:`RUN_S_PER_ANSWER`). The fast
sampler draws support counts directly, so a trial's cost depends on the protocol, the
domain size and the methods, not on n (README, "The fast samplers"). :data:`MEASURED`
holds one trial's seconds at each of :data:`SIZES` on the machine the project is
developed on (``benchmarks/bench_costs.py`` measures them and prints the table); between
them the cost follows the power law through the neighbouring points, up to the d
slider's end (100,000). :func:`first_trials` says how many trials a page draws first.
Beyond :func:`measured_up_to`
an estimate is an extrapolation (once, IBU at GRR, d = 100,000 ran for
minutes where the law through the first two sizes said 0.1 s), and the pages ask
before any such run.

The estimate is what a page shows before a run and what the server's budget
(``LDPCORE_RUN_BUDGET_S``) is compared with. It is for one core: a faster or slower
machine scales it; ``bench_costs.py --check`` compares it with whole runs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ldpcore.errors import InputError

if TYPE_CHECKING:
    from ldpcore.experiments.config import ExperimentConfig

#: The domain sizes each cost was measured at (the last is the d slider's end).
SIZES = (1024, 16384, 100_000)

#: ``(protocol, "trial" | method) -> seconds at each of :data:`SIZES```: one trial
#: at n = 10⁶, ε = 1, Zipf s = 1.5 (``benchmarks/bench_costs.py``, 2026-11-24, this
#: 2-core machine, with SS's halving sampler, HR's row sampler and IBU's Newton start;
#: all three sizes).
#: "trial" is one trial with Base only (sampler, estimate, metrics); a method's figure
#: is one call of it on a trial's estimate.
MEASURED: dict[tuple[str, str], tuple[float, ...]] = {
    ("GRR", "trial"): (1.84e-04, 1.73e-03, 1.22e-02),
    ("GRR", "Base-Pos"): (1.23e-05, 3.21e-05, 1.94e-04),
    ("GRR", "Post-Pos"): (1.11e-05, 2.23e-05, 1.57e-04),
    ("GRR", "Base-Cut"): (1.63e-05, 3.60e-05, 2.35e-04),
    ("GRR", "Norm"): (1.26e-05, 2.97e-05, 1.98e-04),
    ("GRR", "Norm-Mul"): (1.42e-05, 3.84e-05, 2.65e-04),
    ("GRR", "Norm-Cut"): (2.89e-05, 1.24e-04, 8.59e-04),
    ("GRR", "Norm-Sub"): (2.80e-05, 1.37e-04, 1.08e-03),
    ("GRR", "MLE-Apx"): (7.11e-05, 6.39e-04, 3.93e-03),
    ("GRR", "Power"): (6.39e-05, 3.07e-04, 2.09e-03),
    ("GRR", "PowerNS"): (9.00e-05, 4.27e-04, 3.49e-03),
    ("GRR", "MLE"): (8.28e-05, 7.29e-04, 5.19e-03),
    ("GRR", "IBU"): (1.25e-04, 1.14e-03, 7.73e-03),
    ("OLH", "trial"): (1.90e-04, 8.85e-04, 5.85e-03),
    ("OLH", "Base-Pos"): (1.38e-05, 2.91e-05, 1.99e-04),
    ("OLH", "Post-Pos"): (1.00e-05, 2.11e-05, 1.58e-04),
    ("OLH", "Base-Cut"): (1.48e-05, 3.64e-05, 2.33e-04),
    ("OLH", "Norm"): (1.24e-05, 2.77e-05, 1.93e-04),
    ("OLH", "Norm-Mul"): (1.39e-05, 3.99e-05, 2.97e-04),
    ("OLH", "Norm-Cut"): (2.85e-05, 1.33e-04, 9.98e-04),
    ("OLH", "Norm-Sub"): (2.80e-05, 1.65e-04, 1.87e-03),
    ("OLH", "MLE-Apx"): (6.83e-05, 9.70e-04, 6.71e-03),
    ("OLH", "Power"): (1.78e-04, 5.41e-04, 3.48e-03),
    ("OLH", "PowerNS"): (1.94e-04, 7.93e-04, 5.34e-03),
    ("OLH", "MLE"): (3.11e-04, 1.73e-03, 1.36e-02),
    ("OLH", "IBU"): (3.89e-04, 2.17e-03, 1.81e-02),
    ("BLH", "trial"): (1.95e-04, 8.31e-04, 5.70e-03),
    ("BLH", "Base-Pos"): (1.15e-05, 2.87e-05, 2.01e-04),
    ("BLH", "Post-Pos"): (9.35e-06, 1.98e-05, 1.61e-04),
    ("BLH", "Base-Cut"): (1.54e-05, 3.30e-05, 2.35e-04),
    ("BLH", "Norm"): (1.23e-05, 2.73e-05, 2.67e-04),
    ("BLH", "Norm-Mul"): (1.48e-05, 3.92e-05, 2.98e-04),
    ("BLH", "Norm-Cut"): (2.66e-05, 1.34e-04, 1.02e-03),
    ("BLH", "Norm-Sub"): (2.81e-05, 1.60e-04, 1.92e-03),
    ("BLH", "MLE-Apx"): (6.97e-05, 9.99e-04, 6.87e-03),
    ("BLH", "Power"): (1.75e-04, 6.13e-04, 3.41e-03),
    ("BLH", "PowerNS"): (1.94e-04, 7.90e-04, 5.46e-03),
    ("BLH", "MLE"): (3.27e-04, 1.67e-03, 1.43e-02),
    ("BLH", "IBU"): (3.92e-04, 2.23e-03, 1.87e-02),
    ("OUE", "trial"): (1.92e-04, 8.87e-04, 5.93e-03),
    ("OUE", "Base-Pos"): (1.22e-05, 2.94e-05, 2.05e-04),
    ("OUE", "Post-Pos"): (9.52e-06, 2.17e-05, 2.22e-04),
    ("OUE", "Base-Cut"): (1.51e-05, 3.36e-05, 2.33e-04),
    ("OUE", "Norm"): (1.17e-05, 2.90e-05, 1.93e-04),
    ("OUE", "Norm-Mul"): (1.38e-05, 3.70e-05, 2.94e-04),
    ("OUE", "Norm-Cut"): (2.84e-05, 1.31e-04, 1.01e-03),
    ("OUE", "Norm-Sub"): (2.77e-05, 1.64e-04, 1.97e-03),
    ("OUE", "MLE-Apx"): (7.18e-05, 9.67e-04, 6.74e-03),
    ("OUE", "Power"): (1.67e-04, 5.84e-04, 3.44e-03),
    ("OUE", "PowerNS"): (1.88e-04, 8.04e-04, 5.49e-03),
    ("OUE", "MLE"): (2.16e-04, 1.93e-03, 1.45e-02),
    ("OUE", "IBU"): (5.53e-04, 2.44e-03, 1.88e-02),
    ("SUE", "trial"): (2.00e-04, 8.61e-04, 5.80e-03),
    ("SUE", "Base-Pos"): (1.31e-05, 2.91e-05, 2.05e-04),
    ("SUE", "Post-Pos"): (1.01e-05, 2.11e-05, 1.61e-04),
    ("SUE", "Base-Cut"): (1.47e-05, 3.34e-05, 2.32e-04),
    ("SUE", "Norm"): (1.23e-05, 2.91e-05, 2.01e-04),
    ("SUE", "Norm-Mul"): (1.36e-05, 3.69e-05, 2.97e-04),
    ("SUE", "Norm-Cut"): (2.71e-05, 1.32e-04, 1.03e-03),
    ("SUE", "Norm-Sub"): (2.82e-05, 1.60e-04, 1.88e-03),
    ("SUE", "MLE-Apx"): (7.04e-05, 9.96e-04, 6.85e-03),
    ("SUE", "Power"): (1.76e-04, 5.82e-04, 3.60e-03),
    ("SUE", "PowerNS"): (1.91e-04, 7.69e-04, 5.34e-03),
    ("SUE", "MLE"): (3.88e-04, 1.96e-03, 1.10e-02),
    ("SUE", "IBU"): (4.55e-04, 2.55e-03, 1.52e-02),
    # SHE, measured 2026-11-26 with OUE beside it (`bench_costs.py --protocols SHE,OUE`),
    # after its noise moved to the 1/64 grid (negative binomial sums): its trial was
    # 0.85x, 2.26x and 2.04x OUE's at the three sizes in that run (OUE's binomials are
    # cheap where most values hold no user, as on Zipf; SHE's draws are not).
    ("SHE", "trial"): (2.41e-04, 2.67e-03, 1.18e-02),
    ("SHE", "Base-Pos"): (1.47e-05, 5.16e-05, 2.36e-04),
    ("SHE", "Post-Pos"): (1.39e-05, 2.87e-05, 9.56e-05),
    ("SHE", "Base-Cut"): (2.31e-05, 5.11e-05, 1.81e-04),
    ("SHE", "Norm"): (1.85e-05, 4.00e-05, 1.44e-04),
    ("SHE", "Norm-Mul"): (2.22e-05, 6.41e-05, 1.78e-03),
    ("SHE", "Norm-Cut"): (6.96e-05, 5.53e-04, 6.51e-03),
    ("SHE", "Norm-Sub"): (5.42e-05, 6.47e-04, 7.57e-03),
    ("SHE", "MLE-Apx"): (6.91e-05, 1.35e-03, 1.30e-02),
    ("SHE", "Power"): (3.70e-04, 2.00e-03, 1.62e-02),
    ("SHE", "PowerNS"): (4.25e-04, 2.67e-03, 2.15e-02),
    ("SHE", "MLE"): (8.04e-04, 2.60e-03, 1.59e-02),
    ("SHE", "IBU"): (8.86e-04, 3.21e-03, 1.88e-02),
    # THE, measured 2026-11-26 with OUE beside it (`bench_costs.py --protocols THE,OUE`):
    # OUE's figures that day were 0.96 to 1.61 times its row above (trial, MLE, IBU).
    ("THE", "trial"): (2.97e-04, 1.34e-03, 5.87e-03),
    ("THE", "Base-Pos"): (1.45e-05, 3.46e-05, 1.43e-04),
    ("THE", "Post-Pos"): (2.48e-05, 2.34e-05, 9.37e-05),
    ("THE", "Base-Cut"): (4.00e-05, 4.92e-05, 1.74e-04),
    ("THE", "Norm"): (3.41e-05, 3.60e-05, 1.63e-04),
    ("THE", "Norm-Mul"): (3.96e-05, 6.19e-05, 3.15e-04),
    ("THE", "Norm-Cut"): (1.19e-04, 5.43e-04, 5.54e-03),
    ("THE", "Norm-Sub"): (9.53e-05, 6.46e-04, 6.76e-03),
    ("THE", "MLE-Apx"): (1.25e-04, 1.29e-03, 9.22e-03),
    ("THE", "Power"): (2.06e-04, 1.06e-03, 8.05e-03),
    ("THE", "PowerNS"): (2.56e-04, 1.70e-03, 1.58e-02),
    ("THE", "MLE"): (3.80e-04, 2.62e-03, 1.60e-02),
    ("THE", "IBU"): (4.52e-04, 3.21e-03, 2.12e-02),
    ("SS", "trial"): (1.27e-02, 1.43e-01, 1.12e00),
    ("SS", "Base-Pos"): (1.09e-05, 2.95e-05, 2.77e-04),
    ("SS", "Post-Pos"): (9.41e-06, 2.05e-05, 2.22e-04),
    ("SS", "Base-Cut"): (1.49e-05, 3.44e-05, 2.95e-04),
    ("SS", "Norm"): (1.16e-05, 2.81e-05, 2.30e-04),
    ("SS", "Norm-Mul"): (1.26e-05, 4.19e-05, 3.40e-04),
    ("SS", "Norm-Cut"): (2.66e-05, 1.39e-04, 1.08e-03),
    ("SS", "Norm-Sub"): (2.66e-05, 1.80e-04, 1.28e-03),
    ("SS", "MLE-Apx"): (6.92e-05, 1.00e-03, 6.77e-03),
    ("SS", "Power"): (1.72e-04, 6.03e-04, 2.75e-03),
    ("SS", "PowerNS"): (1.95e-04, 7.82e-04, 3.77e-03),
    ("SS", "MLE"): (2.92e-04, 1.78e-03, 1.29e-02),
    ("SS", "IBU"): (3.65e-04, 2.41e-03, 1.60e-02),
    ("HR", "trial"): (3.19e-03, 3.36e-02, 9.82e-02),
    ("HR", "Base-Pos"): (1.13e-05, 2.57e-05, 2.44e-04),
    ("HR", "Post-Pos"): (9.05e-06, 2.06e-05, 2.07e-04),
    ("HR", "Base-Cut"): (1.53e-05, 3.35e-05, 2.76e-04),
    ("HR", "Norm"): (1.20e-05, 2.73e-05, 2.70e-04),
    ("HR", "Norm-Mul"): (1.36e-05, 3.80e-05, 3.95e-04),
    ("HR", "Norm-Cut"): (2.96e-05, 1.35e-04, 1.05e-03),
    ("HR", "Norm-Sub"): (3.11e-05, 1.66e-04, 1.35e-03),
    ("HR", "MLE-Apx"): (6.31e-05, 9.97e-04, 6.78e-03),
    ("HR", "Power"): (1.51e-04, 6.03e-04, 2.87e-03),
    ("HR", "PowerNS"): (1.78e-04, 7.36e-04, 4.09e-03),
    ("HR", "MLE"): (3.28e-03, 2.92e-02, 1.38e-01),
    ("HR", "IBU"): (2.67e-03, 2.99e-02, 1.41e-01),
    # The memoized chains, measured 2026-11-26 with GRR and OUE beside them
    # (`bench_costs.py --protocols L-GRR,GRR,L-OSUE,L-SUE,L-OUE,L-SOUE,OUE`); that day's
    # trials: GRR (2.52e-04, 2.53e-03, 1.44e-02), OUE (3.10e-04, 1.17e-03, 9.25e-03).
    ("L-GRR", "trial"): (3.36e-04, 2.14e-03, 1.33e-02),
    ("L-GRR", "Base-Pos"): (1.35e-05, 3.22e-05, 1.46e-04),
    ("L-GRR", "Post-Pos"): (1.30e-05, 2.32e-05, 9.56e-05),
    ("L-GRR", "Base-Cut"): (1.99e-05, 4.43e-05, 2.31e-04),
    ("L-GRR", "Norm"): (1.76e-05, 3.45e-05, 1.43e-04),
    ("L-GRR", "Norm-Mul"): (2.14e-05, 6.13e-05, 3.46e-04),
    ("L-GRR", "Norm-Cut"): (9.20e-05, 4.03e-04, 3.69e-03),
    ("L-GRR", "Norm-Sub"): (5.46e-05, 4.81e-04, 3.01e-03),
    ("L-GRR", "MLE-Apx"): (6.54e-05, 7.68e-04, 4.92e-03),
    ("L-GRR", "Power"): (9.73e-05, 9.38e-04, 5.04e-03),
    ("L-GRR", "PowerNS"): (1.45e-04, 1.42e-03, 8.86e-03),
    ("L-GRR", "MLE"): (8.45e-05, 1.01e-03, 7.44e-03),
    ("L-GRR", "IBU"): (1.22e-04, 1.32e-03, 1.00e-02),
    ("L-OSUE", "trial"): (2.87e-04, 1.21e-03, 7.90e-03),
    ("L-OSUE", "Base-Pos"): (1.54e-05, 4.01e-05, 3.92e-04),
    ("L-OSUE", "Post-Pos"): (1.16e-05, 2.35e-05, 2.75e-04),
    ("L-OSUE", "Base-Cut"): (1.77e-05, 4.08e-05, 3.87e-04),
    ("L-OSUE", "Norm"): (1.92e-05, 3.28e-05, 3.47e-04),
    ("L-OSUE", "Norm-Mul"): (2.22e-05, 5.92e-05, 8.55e-04),
    ("L-OSUE", "Norm-Cut"): (6.34e-05, 5.14e-04, 8.21e-03),
    ("L-OSUE", "Norm-Sub"): (5.21e-05, 6.12e-04, 1.06e-02),
    ("L-OSUE", "MLE-Apx"): (6.36e-05, 1.33e-03, 1.09e-02),
    ("L-OSUE", "Power"): (1.94e-04, 1.04e-03, 1.31e-02),
    ("L-OSUE", "PowerNS"): (2.69e-04, 1.59e-03, 1.70e-02),
    ("L-OSUE", "MLE"): (2.46e-04, 1.86e-03, 1.71e-02),
    ("L-OSUE", "IBU"): (6.02e-04, 2.47e-03, 2.22e-02),
    ("L-SUE", "trial"): (2.83e-04, 1.14e-03, 6.01e-03),
    ("L-SUE", "Base-Pos"): (1.43e-05, 3.35e-05, 1.43e-04),
    ("L-SUE", "Post-Pos"): (1.18e-05, 2.38e-05, 9.36e-05),
    ("L-SUE", "Base-Cut"): (1.96e-05, 4.17e-05, 1.77e-04),
    ("L-SUE", "Norm"): (1.74e-05, 3.43e-05, 1.37e-04),
    ("L-SUE", "Norm-Mul"): (2.13e-05, 5.87e-05, 3.54e-04),
    ("L-SUE", "Norm-Cut"): (6.69e-05, 4.75e-04, 5.29e-03),
    ("L-SUE", "Norm-Sub"): (5.07e-05, 6.56e-04, 6.76e-03),
    ("L-SUE", "MLE-Apx"): (5.93e-05, 1.28e-03, 9.93e-03),
    ("L-SUE", "Power"): (1.88e-04, 9.69e-04, 8.40e-03),
    ("L-SUE", "PowerNS"): (2.38e-04, 1.58e-03, 1.52e-02),
    ("L-SUE", "MLE"): (3.93e-04, 1.94e-03, 1.58e-02),
    ("L-SUE", "IBU"): (4.68e-04, 3.37e-03, 2.14e-02),
    ("L-OUE", "trial"): (2.78e-04, 1.28e-03, 6.01e-03),
    ("L-OUE", "Base-Pos"): (1.35e-05, 3.26e-05, 1.60e-04),
    ("L-OUE", "Post-Pos"): (1.15e-05, 2.36e-05, 1.81e-04),
    ("L-OUE", "Base-Cut"): (1.79e-05, 4.17e-05, 1.75e-04),
    ("L-OUE", "Norm"): (1.65e-05, 3.42e-05, 1.38e-04),
    ("L-OUE", "Norm-Mul"): (2.07e-05, 5.87e-05, 4.82e-04),
    ("L-OUE", "Norm-Cut"): (6.41e-05, 4.83e-04, 5.39e-03),
    ("L-OUE", "Norm-Sub"): (5.28e-05, 6.35e-04, 7.17e-03),
    ("L-OUE", "MLE-Apx"): (6.04e-05, 1.24e-03, 8.90e-03),
    ("L-OUE", "Power"): (1.91e-04, 9.28e-04, 8.29e-03),
    ("L-OUE", "PowerNS"): (2.58e-04, 1.57e-03, 1.67e-02),
    ("L-OUE", "MLE"): (3.60e-04, 1.93e-03, 1.62e-02),
    ("L-OUE", "IBU"): (4.25e-04, 2.52e-03, 2.32e-02),
    ("L-SOUE", "trial"): (4.99e-04, 1.32e-03, 6.44e-03),
    ("L-SOUE", "Base-Pos"): (1.41e-05, 4.84e-05, 1.42e-04),
    ("L-SOUE", "Post-Pos"): (1.23e-05, 2.36e-05, 9.29e-05),
    ("L-SOUE", "Base-Cut"): (1.86e-05, 4.93e-05, 1.72e-04),
    ("L-SOUE", "Norm"): (1.65e-05, 3.46e-05, 1.42e-04),
    ("L-SOUE", "Norm-Mul"): (2.22e-05, 7.49e-05, 3.22e-04),
    ("L-SOUE", "Norm-Cut"): (6.74e-05, 5.35e-04, 5.59e-03),
    ("L-SOUE", "Norm-Sub"): (5.89e-05, 6.84e-04, 6.84e-03),
    ("L-SOUE", "MLE-Apx"): (5.88e-05, 1.40e-03, 9.17e-03),
    ("L-SOUE", "Power"): (1.87e-04, 1.04e-03, 8.46e-03),
    ("L-SOUE", "PowerNS"): (2.68e-04, 2.20e-03, 1.57e-02),
    ("L-SOUE", "MLE"): (3.56e-04, 2.06e-03, 1.65e-02),
    ("L-SOUE", "IBU"): (4.39e-04, 2.32e-03, 2.17e-02),
    # dBitFlipPM, measured 2026-11-26 with OUE beside it, while the slow test tier ran
    # (`bench_costs.py --protocols dBitFlipPM,OUE`); OUE's trial that run:
    # (3.42e-04, 1.20e-03, 6.01e-03). Its sampler is two halving draws, as SS's one.
    ("dBitFlipPM", "trial"): (8.37e-03, 2.90e-02, 1.80e-01),
    ("dBitFlipPM", "Base-Pos"): (1.42e-05, 4.27e-05, 1.58e-04),
    ("dBitFlipPM", "Post-Pos"): (1.46e-05, 2.86e-05, 1.08e-04),
    ("dBitFlipPM", "Base-Cut"): (2.10e-05, 5.74e-05, 1.88e-04),
    ("dBitFlipPM", "Norm"): (1.93e-05, 4.50e-05, 1.56e-04),
    ("dBitFlipPM", "Norm-Mul"): (2.24e-05, 6.83e-05, 2.86e-04),
    ("dBitFlipPM", "Norm-Cut"): (6.65e-05, 4.04e-04, 2.21e-03),
    ("dBitFlipPM", "Norm-Sub"): (5.83e-05, 4.73e-04, 2.52e-03),
    ("dBitFlipPM", "MLE-Apx"): (7.27e-05, 7.45e-04, 4.77e-03),
    ("dBitFlipPM", "Power"): (7.92e-05, 5.78e-04, 3.03e-03),
    ("dBitFlipPM", "PowerNS"): (1.35e-04, 1.06e-03, 5.27e-03),
    ("dBitFlipPM", "MLE"): (2.73e-04, 1.54e-03, 1.32e-02),
    ("dBitFlipPM", "IBU"): (3.55e-04, 2.31e-03, 1.94e-02),
    # Measured 2026-11-28 (bench_costs.py --protocols TreeOUE,TreeOLH; the consistency
    # step, a no-op on flat protocols, with --methods Consistency).
    ("GRR", "Consistency"): (2.28e-05, 4.07e-05, 2.92e-04),
    ("OLH", "Consistency"): (2.17e-05, 3.73e-05, 3.17e-04),
    ("BLH", "Consistency"): (1.89e-05, 3.74e-05, 2.13e-04),
    ("OUE", "Consistency"): (1.32e-05, 2.52e-05, 2.93e-04),
    ("SUE", "Consistency"): (1.82e-05, 3.55e-05, 2.35e-04),
    ("SHE", "Consistency"): (1.28e-05, 3.81e-05, 3.17e-04),
    ("THE", "Consistency"): (1.98e-05, 2.51e-05, 2.97e-04),
    ("SS", "Consistency"): (1.25e-05, 4.34e-05, 3.68e-04),
    ("HR", "Consistency"): (1.20e-05, 3.89e-05, 3.86e-04),
    ("L-GRR", "Consistency"): (2.25e-05, 2.58e-05, 2.25e-04),
    ("L-OSUE", "Consistency"): (1.20e-05, 2.63e-05, 3.32e-04),
    ("L-SUE", "Consistency"): (2.03e-05, 3.71e-05, 2.92e-04),
    ("L-OUE", "Consistency"): (1.97e-05, 4.19e-05, 3.31e-04),
    ("L-SOUE", "Consistency"): (1.99e-05, 3.53e-05, 2.17e-04),
    ("dBitFlipPM", "Consistency"): (2.05e-05, 2.80e-05, 2.98e-04),
    ("TreeOUE", "trial"): (1.12e-03, 4.90e-03, 3.12e-02),
    ("TreeOUE", "Base-Pos"): (3.43e-04, 1.32e-03, 7.92e-03),
    ("TreeOUE", "Post-Pos"): (3.20e-04, 1.25e-03, 6.16e-03),
    ("TreeOUE", "Base-Cut"): (3.63e-04, 1.29e-03, 5.78e-03),
    ("TreeOUE", "Norm"): (3.98e-04, 1.47e-03, 6.39e-03),
    ("TreeOUE", "Norm-Mul"): (3.91e-04, 1.63e-03, 6.98e-03),
    ("TreeOUE", "Norm-Cut"): (6.24e-04, 2.33e-03, 8.29e-03),
    ("TreeOUE", "Norm-Sub"): (5.03e-04, 2.22e-03, 8.72e-03),
    ("TreeOUE", "MLE-Apx"): (6.05e-04, 2.98e-03, 1.65e-02),
    ("TreeOUE", "Power"): (8.03e-04, 2.68e-03, 1.26e-02),
    ("TreeOUE", "PowerNS"): (8.87e-04, 3.06e-03, 1.56e-02),
    ("TreeOUE", "MLE"): (1.75e-03, 8.64e-03, 4.64e-02),
    ("TreeOUE", "IBU"): (2.12e-03, 8.01e-03, 5.36e-02),
    ("TreeOUE", "Consistency"): (4.14e-04, 1.64e-03, 8.62e-03),
    ("TreeOLH", "trial"): (1.45e-03, 5.02e-03, 3.08e-02),
    ("TreeOLH", "Base-Pos"): (3.51e-04, 1.39e-03, 8.52e-03),
    ("TreeOLH", "Post-Pos"): (3.26e-04, 1.16e-03, 7.86e-03),
    ("TreeOLH", "Base-Cut"): (3.77e-04, 1.32e-03, 7.70e-03),
    ("TreeOLH", "Norm"): (3.77e-04, 1.30e-03, 7.58e-03),
    ("TreeOLH", "Norm-Mul"): (4.11e-04, 1.37e-03, 7.85e-03),
    ("TreeOLH", "Norm-Cut"): (6.39e-04, 1.93e-03, 8.77e-03),
    ("TreeOLH", "Norm-Sub"): (5.08e-04, 1.81e-03, 9.45e-03),
    ("TreeOLH", "MLE-Apx"): (5.89e-04, 3.98e-03, 1.68e-02),
    ("TreeOLH", "Power"): (7.33e-04, 3.51e-03, 1.13e-02),
    ("TreeOLH", "PowerNS"): (1.19e-03, 3.21e-03, 1.59e-02),
    ("TreeOLH", "MLE"): (2.49e-03, 7.38e-03, 3.81e-02),
    ("TreeOLH", "IBU"): (2.44e-03, 7.91e-03, 5.01e-02),
    ("TreeOLH", "Consistency"): (4.97e-04, 1.99e-03, 8.47e-03),
    # Measured 2026-11-28 (bench_costs.py --protocols HaarHRR; its leaves-up sampler).
    ("HaarHRR", "trial"): (4.94e-03, 2.79e-02, 1.33e-01),
    ("HaarHRR", "Base-Pos"): (1.57e-05, 7.64e-05, 3.75e-04),
    ("HaarHRR", "Post-Pos"): (1.69e-05, 2.64e-05, 2.46e-04),
    ("HaarHRR", "Base-Cut"): (2.53e-05, 7.86e-05, 9.89e-04),
    ("HaarHRR", "Norm"): (1.98e-05, 4.28e-05, 4.70e-04),
    ("HaarHRR", "Norm-Mul"): (3.44e-05, 9.92e-05, 8.06e-04),
    ("HaarHRR", "Norm-Cut"): (8.64e-05, 3.64e-04, 2.18e-03),
    ("HaarHRR", "Norm-Sub"): (4.94e-05, 3.11e-04, 2.06e-03),
    ("HaarHRR", "Consistency"): (1.33e-05, 3.61e-05, 3.27e-04),
    # Measured 2026-11-28 (bench_costs.py --protocols SW, and --methods EM): at d = 1,024
    # only, the one size of SIZES the Square Wave takes (at most 2,048 values).
    ("SW", "trial"): (2.37e-03,),
    ("SW", "Base-Pos"): (2.99e-05,),
    ("SW", "Post-Pos"): (2.58e-05,),
    ("SW", "Base-Cut"): (4.19e-05,),
    ("SW", "Norm"): (3.25e-05,),
    ("SW", "Norm-Mul"): (4.67e-05,),
    ("SW", "Norm-Cut"): (1.10e-04,),
    ("SW", "Norm-Sub"): (8.35e-05,),
    ("SW", "Consistency"): (2.15e-05,),
    ("SW", "EMS"): (1.41e-01,),
    ("SW", "EM"): (2.73e-01,),
}

#: A page's first chart: the first trials it shows before the rest cost at most this
#: (seconds of one core), so that a chart is up within about two seconds of a slider
#: move wherever the sliders are.
FIRST_CHART_S = 1.0
#: Above this many values a page asks before it runs anything, whatever the protocol:
#: there the first chart took longer than the two seconds promised. Measured alone on
#: this 2-core machine (2026-11-25; the d slider moved in a browser on a warm server,
#: seconds until the new settings' chart): OUE 1.0 s, GRR 0.7 s at 16,384; OUE 2.0 s,
#: GRR 1.6 s, OLH 1.7 s at 32,768; OUE 3.2 s, GRR 3.2 s at 65,536; OUE 2.4 s, GRR 3.6 s
#: at 100,000 (under load OUE at 100,000 had taken 14-19 s). The fixed part of
#: a run grows with d (per-value tables, pickles, figures), so fewer first trials do
#: not bring it back under.
ASK_FIRST_ABOVE = 32_768
#: A run up to this is shown whole at once: a first chart would save less than drawing
#: the page twice costs.
WHOLE_AT_ONCE_S = 1.5

#: Seconds a run costs per answer (value × method) whatever its trials: the per-value
#: summaries, the per-item table and pickling the result (2.1e-7 measured at d = 16,384
#: and 100,000 with one pickle round trip, 2026-11-24; the app pickles once more, into
#: its cache). At d = 100,000 with 13 methods that is 0.4 s: more than a trial of most
#: protocols, so a first chart's trials are counted after it.
RUN_S_PER_ANSWER = 3e-7

#: Seconds per user per trial of the per-user (reference) sampler, which draws every
#: user's report (benchmarks/README.md, "Fast sampler": about 0.4 µs a user).
PER_USER_S = 4e-7


def measured_up_to() -> int:
    """The largest domain size every part of :data:`MEASURED` was measured at.

    Beyond it an estimate is an extrapolation, and it can be far off: IBU at GRR,
    d = 100,000 ran for minutes a trial where the power law through 1,024 and 16,384
    said 0.1 s (its iterations grow with d). The pages then always ask first.

    Examples
    --------
    >>> measured_up_to() in SIZES
    True
    """
    from ldpcore.protocols import PROTOCOLS  # noqa: PLC0415 (the registry, when asked)

    # A protocol that refuses the larger sizes (SW, at most 2,048 values) is measured
    # only where it runs; it does not lower what the others were measured up to.
    capped = {name for name, cls in PROTOCOLS.items() if (cls.max_domain or SIZES[-1]) < SIZES[1]}
    return SIZES[min(len(times) for (name, _), times in MEASURED.items() if name not in capped) - 1]


def _at(times: tuple[float, ...], domain_size: int) -> float:
    """The cost at ``domain_size``: piecewise power law through the measured points.

    Below the first size and above the last, the nearest segment's slope continues
    (kept between 0 and 2: a cost never falls with d, nor grows faster than d²).
    """
    points = [max(t, 1e-6) for t in times]
    if len(points) == 1:
        # Measured at one size only (SW takes at most 2,048 values): above or below it
        # the cost is taken to grow as d², the cap below, which its channel's inversion
        # (d × (d + 2b) numbers per estimate) follows.
        return points[0] * (domain_size / SIZES[0]) ** 2.0
    sizes = SIZES[: len(points)]
    segment = next(
        (i for i in range(len(sizes) - 2) if domain_size <= sizes[i + 1]), len(sizes) - 2
    )
    low, high = sizes[segment], sizes[segment + 1]
    slope = math.log(points[segment + 1] / points[segment]) / math.log(high / low)
    slope = min(max(slope, 0.0), 2.0)
    return points[segment] * (domain_size / low) ** slope


def _part(protocol: str, part: str, domain_size: int) -> float:
    """One part's seconds (a part not measured: the dearest measured of its kind).

    A protocol or method added later is not yet measured; over-estimating it is the
    safe side of a budget.
    """
    found = MEASURED.get((protocol, part))
    if found is not None:
        return _at(found, domain_size)
    if part == "trial":
        kin = [pair for (_, p), pair in MEASURED.items() if p == "trial"]
    else:
        kin = [pair for (name, p), pair in MEASURED.items() if p != "trial" and name == protocol]
        kin = kin or [pair for (_, p), pair in MEASURED.items() if p != "trial"]
    return max((_at(pair, domain_size) for pair in kin), default=0.0)


def trial_seconds(protocol: str, domain_size: int, methods: Sequence[str]) -> float:
    """Seconds one trial of ``protocol`` at ``domain_size`` takes with ``methods``.

    Examples
    --------
    >>> fast = trial_seconds("GRR", 64, ["Base", "Norm-Sub"])
    >>> slow = trial_seconds("SS", 100_000, ["Base", "Norm-Sub", "MLE", "IBU"])
    >>> fast < 0.01 < 1 < slow
    True
    """
    total = _part(protocol, "trial", domain_size)
    return total + sum(_part(protocol, m, domain_size) for m in methods if m != "Base")


def domain_size_of(config: ExperimentConfig) -> int:
    """How many values ``config``'s dataset has (built to learn it, unless given)."""
    if config.true_counts is not None:
        return len(config.true_counts)
    return config.dataset.build(config.n).domain_size


def fixed_seconds(domain_size: int, methods: int) -> float:
    """What a run costs whatever its trials (:data:`RUN_S_PER_ANSWER`)."""
    return RUN_S_PER_ANSWER * domain_size * methods


def run_seconds(config: ExperimentConfig) -> float:
    """Seconds of one core that running ``config`` takes (every trial, every method)."""
    domain_size = domain_size_of(config)
    per_trial = trial_seconds(config.protocol, domain_size, config.methods)
    if config.sampler != "fast":
        per_trial += PER_USER_S * config.n
    return config.trials * per_trial + fixed_seconds(domain_size, len(config.methods))


def sweep_seconds(config: ExperimentConfig, parameter: str, values: Sequence[Any]) -> float:
    """Seconds of one core that a sweep of ``parameter`` over ``values`` takes."""
    from ldpcore.experiments.sweeps import with_parameter  # noqa: PLC0415 (sweeps loads pandas)

    return sum(run_seconds(with_parameter(config, parameter, value)) for value in values)


def first_trials(total_seconds: float, trials: int, fixed: float = 0.0) -> int:
    """How many of a run's (or sweep's) first trials a page shows before the rest.

    Each trial has its own seed, so the first ``k`` trials of a run are a run of ``k``
    trials: a page can draw them, then all of them, and the last answer is the one a
    single run gives.

    Parameters
    ----------
    total_seconds : float
        The whole run's estimate (:func:`run_seconds` or :func:`sweep_seconds`).
    trials : int
        The run's trials (a sweep: per point).
    fixed : float
        The part of ``total_seconds`` that does not depend on the trials
        (:func:`fixed_seconds`, times the points of a sweep): paid by a first chart too.

    Returns
    -------
    int
        ``trials`` when the whole run costs at most :data:`WHOLE_AT_ONCE_S`; else the
        most trials that cost at most :data:`FIRST_CHART_S` (at least 2: a variance
        needs two); 0 when not even two do (the page then shows its estimate alone).

    Examples
    --------
    >>> first_trials(0.3, 30), first_trials(3.0, 30), first_trials(40.0, 30)
    (30, 10, 0)
    >>> first_trials(3.4, 30, fixed=0.4)  # the fixed 0.4 s leaves 0.6 s for trials
    6
    """
    if total_seconds <= WHOLE_AT_ONCE_S:
        return trials
    per_trial = max(total_seconds - fixed, 0.0) / trials
    room = FIRST_CHART_S - fixed
    fit = int(room / per_trial + 1e-9) if per_trial > 0 else trials  # 5.9999… is 6
    return min(fit, trials - 1) if fit >= 2 else 0


#: The variable the person who runs the server sets (seconds of one core per run).
BUDGET_VARIABLE = "LDPCORE_RUN_BUDGET_S"
#: A few seconds: every default view and most slider positions stay below it.
DEFAULT_BUDGET_S = 5.0


def run_budget_s() -> float:
    """``$LDPCORE_RUN_BUDGET_S``, else :data:`DEFAULT_BUDGET_S` (read on every call).

    Raises
    ------
    InputError
        A value that is not a number of seconds ≥ 0 (``inf`` turns the budget off).
    """
    text = os.environ.get(BUDGET_VARIABLE, "").strip()
    if not text:
        return DEFAULT_BUDGET_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0:  # also refuses nan
        raise InputError(
            f"{BUDGET_VARIABLE}={text!r}: give the most seconds of computing one run may "
            "take without asking (e.g. 5; inf for no limit), then restart the server"
        )
    return value


def within_budget(seconds: float) -> bool:
    """Whether a run of ``seconds`` starts without asking (a bad budget: it asks)."""
    try:
        return seconds <= run_budget_s()
    except InputError:
        return False


__all__ = [
    "ASK_FIRST_ABOVE",
    "BUDGET_VARIABLE",
    "DEFAULT_BUDGET_S",
    "FIRST_CHART_S",
    "MEASURED",
    "PER_USER_S",
    "RUN_S_PER_ANSWER",
    "SIZES",
    "WHOLE_AT_ONCE_S",
    "domain_size_of",
    "first_trials",
    "fixed_seconds",
    "measured_up_to",
    "run_budget_s",
    "run_seconds",
    "sweep_seconds",
    "trial_seconds",
    "within_budget",
]
