"""How a command names a page's data: sample data by its bundled name (the command finds
it without a file), anything else by its file's name."""

from __future__ import annotations

import pytest

from ldpcore.data.datasets import bundled_names, load_bundled
from ldpcore.data.specs import ExplicitCounts, parse_dataset_spec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present.commands import simulate_command


@pytest.mark.parametrize("name", bundled_names())
def test_sample_data_a_page_picked_is_named_as_bundled_and_reads_back_the_same(
    name: str,
) -> None:
    data = load_bundled(name)
    config = ExperimentConfig.from_dataset(data, n=50_000, protocol="OUE", epsilon=1.0)
    command = simulate_command(config)
    assert f" --dataset {name} " in command, command
    # The name the command gives builds the very counts the page ran on.
    assert (
        parse_dataset_spec(name).build(50_000).counts == config.dataset.build(50_000).counts
    ).all()


def test_other_counts_under_a_bundled_name_stay_a_file() -> None:
    name = bundled_names()[0]
    counts = tuple(int(c) + 1 for c in load_bundled(name).counts)
    assert ExplicitCounts(name, counts).command_text() == f"file:{name}"
    assert ExplicitCounts("teams.csv", (3, 4)).command_text() == "file:teams.csv"
