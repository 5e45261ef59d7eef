"""What a class of 30 sees at each of the form's ε: the noise in Base, and the fix.

Run: ``.venv/bin/python -m benchmarks.bench_lesson_outlook [--classes 2000] [--size 30]``.
For each preset question's number of options, each protocol a browser runs and each ε
the Class form offers, ``classes`` seeded classes (answers falling linearly over the
options, ``ldpcore.live.outlook.uneven_class``), each drawn exactly: printed as Markdown
rows, "noise / fix" in percent of classes:

- noise: Base's estimate has an option below 0% or above 100% (the lesson's step 2);
- fix: Norm-Sub moves an option's estimate by 5 points or more (step 3).

Each share is within about ±2.2 points (95%) at 2,000 classes. Stored in
``benchmarks/results/lesson_outlook.json``, from which the docs' table and sentences are
made (``devtools/claims``).
"""

from __future__ import annotations

import argparse

from benchmarks._common import store
from ldpcore.live.outlook import lesson_outlook
from ldpcore.live.reports import PRESETS, live_protocols


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--classes", type=int, default=2000)
    parser.add_argument("--size", type=int, default=30)
    args = parser.parse_args()
    epsilons = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
    print("| question (options) | protocol | " + " | ".join(f"ε = {e:g}" for e in epsilons) + " |")
    print("|---|---|" + "---:|" * len(epsilons))
    rows = []
    for question, options in PRESETS.items():
        for protocol in live_protocols():
            cells, shown = [], []
            for epsilon in epsilons:
                seen = lesson_outlook(
                    protocol, epsilon, len(options), args.size, classes=args.classes, seed=0
                )
                cells.append(f"{seen.noise_shown:.0%} / {seen.fix_shown:.0%}")
                shown.append(
                    {
                        "epsilon": epsilon,
                        "noise": float(seen.noise_shown),
                        "fix": float(seen.fix_shown),
                    }
                )
            print(f"| {question} ({len(options)}) | {protocol} | " + " | ".join(cells) + " |")
            rows.append(
                {"question": question, "options": len(options), "protocol": protocol, "seen": shown}
            )
    store("lesson_outlook", {"classes": args.classes, "size": args.size, "rows": rows})


if __name__ == "__main__":
    main()
