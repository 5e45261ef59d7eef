"""How long the central ε after shuffling takes, over the sliders' range.

Run: ``.venv/bin/python benchmarks/bench_shuffling.py``. For each local ε₀ and n the
Choose ε page and ``ldpcore epsilon-context`` can ask (n from 100 to 10⁹; above 10⁹ the
bound is computed at 10⁹), the numerical bound (FMT 2021, Thm 3.2 by bisection) is
timed cold, best of three, in one process, with the number of divergences evaluated.
The page caches each answer; this is the first visit's cost. With it, the published
example (ε₀ = 4, n = 10⁵, δ = 10⁻⁶). Stored in ``benchmarks/results/shuffling.json``,
from which the docs' table and sentence are made (``devtools/claims``).
"""

from __future__ import annotations

from typing import Any

from _common import best_of, store

from ldpcore.advice import shuffling


def main() -> None:
    """Print a Markdown table: ε₀, n, the bound, seconds, divergences evaluated."""
    print("| ε₀ | n | central ε (δ = 10⁻⁶) | closed form | seconds | divergences |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    calls = 0
    original = shuffling._delta

    def counted(*args: float, **kwargs: float) -> float:
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)  # type: ignore[arg-type]

    shuffling._delta = counted  # type: ignore[assignment]
    rows: list[dict[str, Any]] = []
    try:
        for epsilon0 in (0.1, 1.0, 4.0, 10.0):
            for n in (100, 10**4, 10**6, 10**9):
                calls = 0
                bound = shuffling.shuffled_epsilon(epsilon0, n, 1e-6)
                evaluated = calls
                seconds = best_of(
                    lambda e=epsilon0, m=n: shuffling.shuffled_epsilon(e, m), repeat=3
                )
                closed = "—" if bound.closed_form is None else f"{bound.closed_form:.4g}"
                print(
                    f"| {epsilon0:g} | {n:,} | {bound.numerical:.4g} | {closed} | "
                    f"{seconds:.3f} | {evaluated} |"
                )
                rows.append(
                    {
                        "epsilon0": epsilon0,
                        "n": n,
                        "numerical": float(bound.numerical),
                        "closed_form": bound.closed_form,
                        "seconds": seconds,
                        "divergences": evaluated,
                    }
                )
    finally:
        shuffling._delta = original
    example = shuffling.shuffled_epsilon(4.0, 10**5, 1e-6)
    store(
        "shuffling",
        {
            "delta": 1e-6,
            "rows": rows,
            "example": {
                "epsilon0": 4.0,
                "n": 10**5,
                "numerical": float(example.numerical),
                "closed_form": example.closed_form,
            },
        },
    )


if __name__ == "__main__":
    main()
