"""Choose ε search time per bundled dataset, at the page's defaults.

Five protocols (GRR, OLH, OUE, SS, HR), six methods, n = 1e6, top-10, target 0.5 pp,
10 trials per point; one run per dataset: each protocol alone, their sum, and the wall
time of the page's way (the protocols in parallel on a pool of one thread per core, and
each search's new ε points on threads of their own),
with the answers (so a speed change can be checked to keep them within their
intervals; both ways must give the same answers, as each trial has its own seed).

    .venv/bin/python benchmarks/bench_choose_epsilon.py [countries emoji words]
    .venv/bin/python benchmarks/bench_choose_epsilon.py --compare

``--compare`` answers one question where post-processing changes the answer (OLH, the
full query on Zipf 1.5, d = 1,024, n = 10⁵, target 0.1 pp, 10 trials a point) and
stores it in ``benchmarks/results/choose_epsilon.json``, from which the docs' sentence
is made (``devtools/claims``).
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from _common import store

from ldpcore.advice import choose_epsilon
from ldpcore.experiments.config import ExperimentConfig

PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")


def main(datasets: list[str]) -> None:
    cores = os.cpu_count() or 1
    print(
        f"| dataset | parallel s ({cores} threads) | sum s | "
        + " | ".join(f"{p} s" for p in PROTOCOLS)
        + " | answers |"
    )
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in PROTOCOLS) + " | --- |")
    for dataset in datasets:
        config = ExperimentConfig(
            dataset=dataset,
            n=10**6,
            protocol="GRR",
            epsilon=1.0,
            methods=METHODS,
            query="topk:k=10",
            trials=10,
        )
        seconds, answers = [], []
        for protocol in PROTOCOLS:
            start = time.perf_counter()
            (answer,) = choose_epsilon(config, target_rmse=0.005, protocols=[protocol])
            seconds.append(time.perf_counter() - start)
            answers.append(
                f"{protocol} {answer.method} {answer.epsilon:.3g}"
                f"{' helps' if answer.post_processing_helps else ''}"
            )
        with ThreadPoolExecutor(cores) as pool:
            start = time.perf_counter()
            together = choose_epsilon(
                config,
                target_rmse=0.005,
                protocols=PROTOCOLS,
                executor=pool,
                point_threads=cores,
            )
            wall = time.perf_counter() - start
        same = [
            f"{a.protocol} {a.method} {a.epsilon:.3g}{' helps' if a.post_processing_helps else ''}"
            for a in together
        ]
        if same != answers:
            raise SystemExit(f"parallel answers differ: {same} != {answers}")
        cells = " | ".join(f"{s:.2f}" for s in seconds)
        print(f"| {dataset} | {wall:.1f} | {sum(seconds):.1f} | {cells} | {'; '.join(answers)} |")


#: The question ``--compare`` answers: one where a method lowers the ε needed.
COMPARED = {
    "dataset": "zipf:d=1024,s=1.5",
    "n": 100_000,
    "protocol": "OLH",
    "query": "full",
    "target_rmse": 0.001,
    "trials": 10,
}


def compare() -> None:
    """Answer :data:`COMPARED` and store the answer."""
    config = ExperimentConfig(
        dataset=COMPARED["dataset"],
        n=COMPARED["n"],
        protocol=COMPARED["protocol"],
        epsilon=1.0,
        methods=METHODS,
        query=COMPARED["query"],
        trials=COMPARED["trials"],
    )
    (answer,) = choose_epsilon(
        config, target_rmse=COMPARED["target_rmse"], protocols=[COMPARED["protocol"]]
    )
    found = answer.to_json_dict()
    print(found)
    store("choose_epsilon", {"setting": COMPARED, "methods": list(METHODS), "answer": found})


if __name__ == "__main__":
    if sys.argv[1:] == ["--compare"]:
        compare()
    else:
        main(sys.argv[1:] or ["countries", "emoji", "words"])
