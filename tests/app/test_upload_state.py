"""One state per upload: every surface that takes a file, run as "file A, change the
form, file B"; what is shown and computed afterwards belongs to B."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest import commands, frame, messages, open_page
from collected_files import COLLECTED_KINDS, counts_file, estimates_file, reports_file
from command import COMMAND, run_shown

from ldpcore.formats import format_error
from ldpcore.protocols import get_protocol, protocol_names


def test_collected_output_second_file_starts_from_what_it_says() -> None:
    first, _ = counts_file("OUE", 21_699, 12, seed=1)
    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(("teams.csv", first, "text/csv"))
    at = at.run()
    # The person sets the first file's settings.
    at.selectbox(key="collected-protocol").set_value("OUE")
    at.number_input(key="collected-n").set_value(21_699)
    at = at.run()
    assert not at.exception and at.radio(key="collected-kind").value == "counts"
    # File B holds estimates: the form starts from what B says, not from A's choices.
    second, estimates = estimates_file(9)
    at.file_uploader(key="collected-upload").set_value(("clubs.csv", second, "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    assert at.radio(key="collected-kind").value == "estimates"
    assert at.selectbox(key="collected-protocol").value == protocol_names()[1]
    assert at.number_input(key="collected-n").value == 10_000
    assert "not a whole number" not in messages(at)
    table = frame(at, "base_estimate")
    assert list(table["value"]) == [f"C{i}" for i in range(9)]
    np.testing.assert_allclose(table["base_estimate"], estimates)


def test_a_histogram_s_columns_belong_to_its_file() -> None:
    at = open_page("pages/your_data.py")
    at.radio(key="yours-source").set_value("Upload a file").run()
    at.file_uploader(key="yours-upload").set_value(
        ("fruit.csv", b"fruit,units,shop\napple,120,a\npear,75,b\nfig,30,a\n", "text/csv")
    )
    at = at.run()
    at.selectbox(key="yours-group-col").set_value("(none)")
    at = at.run()
    assert not at.exception, at.exception
    # A file whose columns are a year and a count: both guessed, neither kept from A.
    films = "year,films\n" + "".join(f"{1990 + i},{5 + i}\n" for i in range(12))
    at.file_uploader(key="yours-upload").set_value(("films.csv", films.encode(), "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="yours-value-col").value == "year"
    assert at.selectbox(key="yours-count-col").value == "films"
    assert not at.error, messages(at)


@pytest.mark.parametrize(("first", "second"), [(("OUE", 16, 1.0), ("GRR", 6, 2.0))])
def test_a_report_file_s_recorded_settings_fill_the_form_afresh(
    first: tuple[str, int, float], second: tuple[str, int, float]
) -> None:
    at = open_page("pages/your_data.py")
    at.radio(key="collected-shape").set_value("The reports, one row per user").run()
    at.file_uploader(key="reports-upload").set_value(("a.csv", reports_file(*first), "text/csv"))
    at = at.run()
    assert at.selectbox(key="reports-protocol").value == first[0]
    at.number_input(key="reports-epsilon").set_value(3.0)  # the person changes the form
    at = at.run()
    at.file_uploader(key="reports-upload").set_value(("b.csv", reports_file(*second), "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="reports-protocol").value == second[0]
    assert at.number_input(key="reports-d").value == second[1]
    assert at.number_input(key="reports-epsilon").value == pytest.approx(second[2])


FILMS = "year,films,shorts\n" + "".join(
    f"{year},{count},{count // 3 + 1}\n"
    for year, count in zip(range(2001, 1989, -1), range(40, 4, -3), strict=True)
)


def test_the_page_s_command_reads_the_upload_as_the_page_did(tmp_path: Path) -> None:
    """Out of numeric order, two count columns: the page orders the years and counts the
    column picked; so does its command."""
    at = open_page("pages/your_data.py")
    at.radio(key="yours-source").set_value("Upload a file").run()
    at.file_uploader(key="yours-upload").set_value(("films.csv", FILMS.encode(), "text/csv"))
    at = at.run()
    # Two numbers beside the year: the count is not the year itself, and can be chosen.
    assert at.selectbox(key="yours-value-col").value == "year"
    assert at.selectbox(key="yours-count-col").value == "films"
    at.selectbox(key="yours-count-col").set_value("shorts")
    at = at.run()
    at.slider(key="yours-trials").set_value(5)
    at.radio(key="yours-query").set_value("Ranges of values").run()
    at.number_input(key="yours-length").set_value(3)
    at.radio(key="yours-order").set_value("By their numbers").run()
    assert not at.exception and not at.error, messages(at)
    command = next(c for c in commands(at) if c.startswith("ldpcore simulate"))
    assert "--numeric-order" in command and "--count-column shorts" in command
    (tmp_path / "films.csv").write_text(FILMS)
    done = run_shown(command, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = {r["method"]: r["mse"] for r in json.loads(done.stdout)["results"]}
    shown = frame(at, "equivalent users n'").set_index("method")["MSE"].to_dict()
    assert set(shown) <= set(printed)
    for method, cell in shown.items():
        assert cell == format_error(printed[method]), method


def test_the_sidebar_says_when_a_named_protocol_is_for_ordered_values_the_data_lacks() -> None:
    from apptest import app  # noqa: PLC0415

    from ldpcore.protocols import PROTOCOLS  # noqa: PLC0415

    ordered = next(name for name, cls in PROTOCOLS.items() if cls.ordered_values)
    at = app({"protocol": ordered, "dataset": "sample: countries", "trials": "5"})
    at.run()
    said = " | ".join(c.value for c in at.sidebar.caption)
    assert f"{ordered} is made for ordered values; countries has none." in said
    at = app({"protocol": ordered, "dataset": "sample: ages", "trials": "5"})
    at.run()
    assert "made for ordered values" not in " | ".join(c.value for c in at.sidebar.caption)


def _upload_collected(at: object, kind: str) -> object:
    make, _ = COLLECTED_KINDS[kind]
    shape = (
        "The reports, one row per user"
        if kind == "reports"
        else ("Support counts or estimates, one row per value")
    )
    at.radio(key="collected-shape").set_value(shape).run()  # type: ignore[attr-defined]
    key = "reports-upload" if kind == "reports" else "collected-upload"
    at.file_uploader(key=key).set_value((f"{kind}.csv", make(), "text/csv"))  # type: ignore[attr-defined]
    return at.run()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("first", "second"),
    [(a, b) for a in COLLECTED_KINDS for b in COLLECTED_KINDS if a != b],
)
def test_every_pair_of_collected_files_keeps_one_state_per_file(first: str, second: str) -> None:
    """File A, its method and n changed by hand, then file B: B's form, its recommended
    method and the estimates shown are B's own, computed from the settings on its form."""
    from ldpcore.advice import recommend  # noqa: PLC0415
    from ldpcore.collection.estimates import (  # noqa: PLC0415
        consistent_estimates_and_caveats,
        read_collected,
    )

    at = _upload_collected(open_page("pages/your_data.py"), first)
    assert not at.exception and not at.error, messages(at)
    at.selectbox(key="collected-method").set_value("Base-Cut")
    if first != "reports":
        at.number_input(key="collected-n").set_value(9_600)
    at = at.run()
    at = _upload_collected(at, second)
    assert not at.exception and not at.error, (first, second, messages(at))
    # The method starts at B's recommendation, not at A's choice.
    method = at.selectbox(key="collected-method").value
    shown = frame(at, "estimate")
    if second == "reports":
        assert at.selectbox(key="reports-protocol").value == "GRR"
        return
    _, kind = COLLECTED_KINDS[second]
    assert at.radio(key="collected-kind").value == kind
    assert at.number_input(key="collected-n").value == 10_000
    settings = {
        "kind": kind,
        "protocol": at.selectbox(key="collected-protocol").value,
        "epsilon": at.number_input(key="collected-epsilon").value,
        "n": 10_000,
    }
    collected = read_collected(COLLECTED_KINDS[second][0](), source=f"{second}.csv", **settings)
    k = min(10, len(collected.labels) - 1)  # the query picker's default: the top values
    found = recommend(
        collected.estimate, protocol=collected.protocol, n=collected.n, query=f"topk:k={k}"
    )
    assert method == found.recommended, (method, found.recommended)
    table, _ = consistent_estimates_and_caveats(collected, method)
    np.testing.assert_allclose(shown["estimate"], table["estimate"], rtol=1e-12)
    assert list(shown["value"]) == list(table["value"])


def test_the_collected_tab_s_commands_give_its_numbers(tmp_path: Path) -> None:
    """The commands shown under the collected file's answer: `postprocess` writes the
    table the page shows, `recommend` names the method the page recommends."""
    import re  # noqa: PLC0415

    data, _ = counts_file("OUE", 21_699, 12, seed=1)
    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(("teams.csv", data, "text/csv"))
    at = at.run()
    assert not at.exception and not at.error, messages(at)
    said = " ".join(str(block.value) for block in at.markdown)
    lines = re.findall(r"`+ (ldpcore (?:recommend|postprocess) [^`]+?) `+", said)
    assert len(lines) == 2, said
    (tmp_path / "teams.csv").write_bytes(data)
    done = {}
    for line in lines:
        args = (
            [*shlex.split(line)[1:], "--format", "json"]
            if " recommend " in line
            else [*shlex.split(line)[1:], "--output", "out.csv"]
        )
        ran = subprocess.run(
            [*COMMAND, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=180,
        )
        assert ran.returncode == 0, (line, ran.stderr)
        done[args[0]] = ran.stdout
    assert (
        json.loads(done["recommend"])["recommended"] == at.selectbox(key="collected-method").value
    )
    written = pd.read_csv(tmp_path / "out.csv")
    shown = frame(at, "estimate")
    assert list(written.columns)[:2] == ["value", "frequency"] or "estimate" in written.columns
    column = "estimate" if "estimate" in written.columns else "frequency"
    np.testing.assert_allclose(written[column], shown["estimate"], rtol=1e-9)


def test_a_second_report_file_of_the_same_name_starts_its_method_afresh() -> None:
    """Two report files both called reports.csv (the same export, run twice): what was
    chosen for the first belongs to that upload, not to its name."""
    from ldpcore.advice import recommend  # noqa: PLC0415
    from ldpcore.collection.estimates import read_collected  # noqa: PLC0415
    from ldpcore.collection.report_check import check_report_upload  # noqa: PLC0415

    second = reports_file("OUE", 8, 1.0)
    # The second file's recommendation, made by the core from its reports as the page
    # aggregates them.
    table, users = check_report_upload(
        get_protocol("OUE", epsilon=1.0, domain_size=8), second, "reports.csv"
    ).counts_table(drop=True)
    collected = read_collected(table, kind="counts", protocol="OUE", epsilon=1.0, n=users)
    wanted = recommend(collected.estimate, protocol=collected.protocol, n=users, query="topk:k=7")
    at = open_page("pages/your_data.py")
    at.radio(key="collected-shape").set_value("The reports, one row per user").run()
    # The same number of values, so the query (top-7) is the same for both files.
    first = reports_file("GRR", 8, 2.0)
    at.file_uploader(key="reports-upload").set_value(("reports.csv", first, "text/csv"))
    at = at.run()
    assert not at.exception and not at.error, messages(at)
    chosen = next(
        m for m in at.selectbox(key="collected-method").options if m != wanted.recommended
    )
    at.selectbox(key="collected-method").set_value(chosen)
    at = at.run()
    at.file_uploader(key="reports-upload").set_value(("reports.csv", second, "text/csv"))
    at = at.run()
    assert not at.exception and not at.error, messages(at)
    assert at.selectbox(key="reports-protocol").value == "OUE"
    assert at.selectbox(key="collected-method").value == wanted.recommended, chosen
