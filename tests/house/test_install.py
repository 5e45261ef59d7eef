"""The bare ``pip install ldpcore``: the engine without a web server, a browser or plots.

The package (``pyproject.toml``, ``README.md`` and ``ldpcore/`` only, copied out of the
checkout) is installed into a fresh virtual environment, which then simulates, randomizes
and aggregates reports, post-processes, and answers on the command line; a command that
draws says which extra to install. Slow tier: pip builds the wheel and installs numpy,
scipy and pandas.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Run inside the bare environment: the engine from Python, end to end.
ENGINE_SCRIPT = """
import importlib.util, json
import numpy as np
import ldpcore
from ldpcore.postprocess import get_method

absent = [m for m in ("streamlit", "plotly", "segno", "kaleido", "nbformat", "distributed")
          if importlib.util.find_spec(m) is not None]
config = ldpcore.ExperimentConfig(dataset="zipf:d=16,s=1.2", n=5_000, protocol="OUE",
                                  epsilon=1.0, methods=("Base", "Norm-Sub"), trials=3, seed=1)
summary = ldpcore.run(config).summary
protocol = ldpcore.get_protocol("GRR", epsilon=2.0, domain_size=8)
values = np.repeat(np.arange(8), 250)
support = protocol.aggregate(protocol.randomize(values, rng=3))
estimate = protocol.estimate(support, n=values.size)
consistent = get_method("Norm-Sub")(estimate, protocol=protocol, n=values.size)
print(json.dumps({
    "installed_extras": absent,
    "methods": list(summary["method"]),
    "support_total": int(support.sum()),
    "estimate_total": float(estimate.sum()),
    "consistent_min": float(consistent.min()),
    "consistent_total": float(consistent.sum()),
}))
"""


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with ``pip install <the package>`` and nothing else."""
    root = tmp_path_factory.mktemp("bare")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "ldpcore", source / "ldpcore", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = root / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    subprocess.run(
        [env / "bin" / "python", "-m", "pip", "install", "--quiet", str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    return env


@pytest.mark.slow
def test_the_bare_install_runs_the_engine_without_the_app(bare: Path) -> None:
    done = subprocess.run(
        [bare / "bin" / "python", "-c", ENGINE_SCRIPT],
        capture_output=True,
        text=True,
        check=False,
        cwd=bare,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["installed_extras"] == []
    assert seen["methods"] == ["Base", "Norm-Sub"]
    assert seen["support_total"] == 2_000  # GRR: one supported value per report
    assert seen["consistent_min"] >= 0
    assert seen["consistent_total"] == pytest.approx(1.0)


@pytest.mark.slow
def test_the_bare_command_answers_and_names_the_extra_it_lacks(bare: Path) -> None:
    command = bare / "bin" / "ldpcore"
    answered = subprocess.run(
        [
            command,
            "simulate",
            "--protocol",
            "OLH",
            "--epsilon",
            "1",
            "--n",
            "2000",
            "--dataset",
            "zipf:d=8",
            "--trials",
            "2",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=bare,
    )
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout)["config"]["protocol"] == "OLH"
    drawn = subprocess.run(
        [command, "reproduce", "ndss-fig1", "--quick", "--no-png", "--out", "figures"],
        capture_output=True,
        text=True,
        check=False,
        cwd=bare,
    )
    assert drawn.returncode == 2
    assert drawn.stderr.strip() == (
        "error: ldpcore needs plotly to draw figures: pip install 'ldpcore[plots]'"
    )
    assert "Traceback" not in drawn.stderr
