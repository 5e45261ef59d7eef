"""Every paper reproduction at full size: each claim's verdict, measured as its paper's.

Runs every recipe of :mod:`ldpcore.reproduce` at the papers' trial counts (``--full``)
and keeps, per claim, what the paper says, what was measured with its 95% interval and
the verdict (holds, does not hold, cannot tell, with the trials that would settle it),
and per recipe its wall time.

Run: ``.venv/bin/python -m benchmarks.bench_reproduce [--mode full]``. Prints a
Markdown table and stores ``benchmarks/results/reproduce.json``, from which the docs'
table and sentences are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks._common import store
from ldpcore.reproduce import get_recipe, recipe_ids, run_recipe


def main() -> None:
    """Run every recipe, print a row each and store the claims."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("quick", "full"), default="full")
    mode = parser.parse_args().mode
    recipes: list[dict[str, Any]] = []
    print("| recipe | holds | does not hold | cannot tell | seconds |")
    print("|---|---:|---:|---:|---:|")
    for recipe_id in recipe_ids():
        reproduction = run_recipe(recipe_id, mode)
        claims = [
            {
                "text": claim.text,
                "measured": claim.measured,
                "status": claim.status,
                "estimate": claim.estimate,
                "low": claim.low,
                "high": claim.high,
                "trials": claim.trials,
                "trials_to_settle": claim.trials_to_settle,
            }
            for claim in reproduction.claims
        ]
        recipes.append(
            {
                "recipe": recipe_id,
                "title": reproduction.title,
                "paper": get_recipe(recipe_id).paper,
                "seconds": reproduction.seconds,
                "claims": claims,
            }
        )
        counts = [sum(c["status"] == s for c in claims) for s in ("holds", "does not hold")]
        print(
            f"| {recipe_id} | {counts[0]} | {counts[1]} | {len(claims) - sum(counts)} | "
            f"{reproduction.seconds:.1f} |",
            flush=True,
        )
    store("reproduce", {"mode": mode, "recipes": recipes})


if __name__ == "__main__":
    main()
