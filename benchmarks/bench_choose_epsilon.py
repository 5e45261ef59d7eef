"""Choose ε search time per bundled dataset, at the page's defaults (issue 13).

Five protocols (GRR, OLH, OUE, SS, HR), six methods, n = 1e6, top-10, target 0.5 pp,
10 trials per point; one run per dataset, per protocol and in total, with the answers
(so a speed change can be checked to keep them within their intervals).

    .venv/bin/python benchmarks/bench_choose_epsilon.py [countries emoji words]
"""

from __future__ import annotations

import sys
import time

from ldpcore.advice import choose_epsilon
from ldpcore.experiment import ExperimentConfig

PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")


def main(datasets: list[str]) -> None:
    print("| dataset | total s | " + " | ".join(f"{p} s" for p in PROTOCOLS) + " | answers |")
    print("| --- | ---: | " + " | ".join("---:" for _ in PROTOCOLS) + " | --- |")
    for dataset in datasets:
        config = ExperimentConfig(dataset=dataset, n=10**6, protocol="GRR", epsilon=1.0,
                                  methods=METHODS, query="topk:k=10", trials=10)  # fmt: skip
        seconds, answers = [], []
        for protocol in PROTOCOLS:
            start = time.perf_counter()
            (answer,) = choose_epsilon(config, target_rmse=0.005, protocols=[protocol])
            seconds.append(time.perf_counter() - start)
            answers.append(f"{protocol} {answer.method} {answer.epsilon:.3g}"
                           f"{' helps' if answer.post_processing_helps else ''}")  # fmt: skip
        cells = " | ".join(f"{s:.2f}" for s in seconds)
        print(f"| {dataset} | {sum(seconds):.1f} | {cells} | {'; '.join(answers)} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["countries", "emoji", "words"])
