"""AppTest flows of the data pages: Your data and Choose ε, with good and bad uploads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from apptest import app, chart, commands, frame, messages, open_page, values
from command import run_shown
from streamlit.testing.v1 import AppTest

from ldpcore.present.epsilon_sentences import LONG_COLUMNS
from ldpcore.present.tables import RISK_SHARES
from ldpcore.protocols import get_protocol, protocol_class

HISTOGRAM = b"value,count,group\napple,480,fruit\npear,320,fruit\nleek,150,veg\nkale,50,veg\n"


def answer_sentence(at) -> str:
    """Choose ε's answer in full, under its one-line headline."""
    return next(m.value for m in at.markdown if m.value.startswith("With "))


def upload(at: AppTest, key: str, name: str, content: bytes) -> AppTest:
    at.radio(key=f"{key}-source").set_value("Upload a file").run()
    at.file_uploader(key=f"{key}-upload").set_value((name, content, "text/csv"))
    return at.run()


def test_your_data_simulates_an_upload_and_recommends_a_method() -> None:
    at = upload(open_page("pages/your_data.py"), "yours", "fruit.csv", HISTOGRAM)
    assert not at.exception, at.exception
    assert [m.value for m in at.metric] == ["4", "1,000", "2"]
    bars = chart(at, "chart-histogram")["data"][0]
    assert list(bars["x"]) == ["apple", "pear", "leek", "kale"]
    assert values(bars["y"]) == [480, 320, 150, 50]
    at.slider(key="yours-trials").set_value(5)
    at.radio(key="yours-query").set_value("Group totals")
    at = at.run()
    assert not at.exception, at.exception
    banners = [e.value for e in [*at.success, *at.info] if "Recommended:" in e.value]
    assert len(banners) == 1, messages(at)
    # Green only when the headline credits a significant gain (with its interval).
    assert bool(at.success) == ("lower than the raw estimates' (Base; " in banners[0])
    table = frame(at, "equivalent users n'")
    assert set(table["method"]) >= {"Base", "Norm-Sub"}
    by_method = table.set_index("method")
    assert by_method.loc["Base", "vs Base"] == "reference"
    assert set(table["vs Base"]) <= {
        "reference",
        "lower",
        "higher",
        "same answers",
        "no significant difference",
    }
    # Group totals are not every value's frequency: no equivalent users, said as "—"
    # with a tooltip (a Markdown link title) that says why, never "None" or "nan".
    for cell in table["equivalent users n'"]:
        assert cell.startswith('[—](#every-method "') and "every value" in cell, cell


AGES = b"value,count\n40,120\n20,300\n30,250\n60,90\n50,100\n70,40\n"


def test_an_ordered_histogram_asks_its_order_and_answers_ranges() -> None:
    at = upload(open_page("pages/your_data.py"), "yours", "ages.csv", AGES)
    assert not at.exception, at.exception
    at.slider(key="yours-trials").set_value(5)
    at.radio(key="yours-query").set_value("Ranges of values").run()
    at.number_input(key="yours-length").set_value(2)
    at.radio(key="yours-order").set_value("By their numbers").run()
    assert not at.exception and not at.error, messages(at)
    assert any("ranges of 2 values" in e.value for e in [*at.success, *at.info])
    table = frame(at, "equivalent users n'")
    # OLH is flat: the tree's consistency step is neither run nor offered on it.
    assert "Base" in set(table["method"]) and "Consistency" not in set(table["method"])
    # In the file's order the ranges are other ones: the answers change with the order.
    ordered = frame(at, "equivalent users n'").set_index("method")["MSE"].to_dict()
    at.radio(key="yours-order").set_value("As in the file").run()
    assert not at.exception and not at.error
    assert frame(at, "equivalent users n'").set_index("method")["MSE"].to_dict() != ordered


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"value,count\na,-2\nb,3\n", "is negative (-2)"),
        (b"value,count\na,2.5\nb,3\n", "not a whole number"),
        (b"value,count\na,1\n", "at least 2 are needed"),
        (b"value,count\na,0\nb,0\n", "every count is 0"),
        (b"value,note\na,x\nb,y\n", "has no numeric column"),
        (b"\xff\xfe\x00", "not UTF-8"),
    ],
)
def test_your_data_explains_bad_uploads(content: bytes, message: str) -> None:
    at = upload(open_page("pages/your_data.py"), "yours", "bad.csv", content)
    assert not at.exception, at.exception
    assert message in messages(at)


def test_duplicates_are_summed_only_when_asked() -> None:
    at = upload(
        open_page("pages/your_data.py"), "yours", "dup.csv", b"value,count\na,1\nb,2\na,3\n"
    )
    assert "appear on more than one row" in messages(at) and not at.metric
    at.checkbox(key="yours-sum").check()
    at = at.run()
    assert not at.exception and [m.value for m in at.metric][:2] == ["2", "6"]


def test_ambiguous_columns_are_chosen_by_the_user() -> None:
    at = upload(
        open_page("pages/your_data.py"),
        "yours",
        "years.csv",
        b"city,in 2019,in 2020\nx,1,2\ny,3,4\n",
    )
    assert not at.exception, at.exception
    at.selectbox(key="yours-count-col").set_value("in 2020")
    at = at.run()
    assert [m.value for m in at.metric][:2] == ["2", "6"]


def test_a_header_of_years_is_marked_by_the_user() -> None:
    at = upload(
        open_page("pages/your_data.py"), "yours", "years.csv", b"city,2019,2020\nx,1,2\ny,3,4\n"
    )
    assert not at.exception, at.exception
    assert at.checkbox(key="yours-header").value is False  # guessed: data
    at.checkbox(key="yours-header").check().run()
    at.selectbox(key="yours-count-col").set_value("2020")
    at = at.run()
    assert not at.exception, at.exception
    assert [m.value for m in at.metric][:2] == ["2", "6"]  # x and y, 2 + 4 users
    # A different file starts from its own guess again.
    at = upload(at, "yours", "fruit.csv", HISTOGRAM)
    assert at.checkbox(key="yours-header").value is True


def test_collected_output_becomes_consistent_estimates() -> None:
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=4)
    support = oracle.sample_support_counts([5000, 3000, 1500, 500], 1)
    content = ("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(support))).encode()
    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(("counts.csv", content, "text/csv"))
    at = at.run()
    at.number_input(key="collected-n").set_value(10_000)
    at = at.run()
    assert not at.exception, at.exception
    assert at.radio(key="collected-kind").value == "counts"
    table = frame(at, "base_estimate")
    assert list(table["value"]) == ["v0", "v1", "v2", "v3"]
    assert table["estimate"].sum() == pytest.approx(1.0) and (table["estimate"] >= 0).all()
    np.testing.assert_allclose(table["base_estimate"], oracle.estimate(support, 10_000))
    assert (table["low"] <= table["estimate"]).all() and (table["estimate"] <= table["high"]).all()
    assert ((table["low"] >= 0) & (table["high"] <= 1)).all()
    # The caption says how the intervals are made, from the wording module.
    assert any("exact variance" in caption.value for caption in at.caption)


def test_collected_output_with_too_few_users_is_explained() -> None:
    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(
        ("counts.csv", b"value,count\na,700\nb,300\n", "text/csv")
    )
    at = at.run()
    at.number_input(key="collected-n").set_value(500)
    at = at.run()
    assert not at.exception, at.exception
    assert "more than the n = 500 users" in messages(at)


def test_choose_epsilon_answers_in_one_sentence_with_risk() -> None:
    at = open_page("pages/choose_epsilon.py")
    at.selectbox(key="choose-bundled").set_value("countries")
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["GRR", "OUE"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    at.number_input(key="choose-target").set_value(1.0)
    at = at.run()
    assert not at.exception, at.exception
    # The answer in one line first (the green headline), the sentence with its reasons under it.
    assert at.success[0].value.startswith("Smallest ε to have each value asked about within ±1")
    sentence = answer_sentence(at)
    assert sentence.startswith("With 1,000,000 users") and "meets your target" in sentence
    table = frame(at, "recommended method")
    assert list(table["protocol"]) == ["GRR", "OUE"]
    # Top-10 of countries: post-processing cannot help GRR (Norm-Sub only redistributes
    # the tail), and the sentence must follow from the paired comparison, not from noise.
    assert table["post-processing helps"].iloc[0] == "no"
    if (table["post-processing helps"] == "no").all():
        assert "no post-processing method measurably lowers" in sentence
        assert "without post-processing (Base)" in sentence
    # Every ε with its interval, or exact (Base's by Eq. 3, the top-10 being single values).
    assert "exact, NDSS Eq. 3" in table["smallest ε"].iloc[0]
    assert "proper distribution" in table["a proper distribution at this ε"].iloc[0]
    # Every reason also in full below the table, where no cell can cut it off.
    listed = " ".join(m.value for m in at.markdown)
    for protocol, reason in zip(table["protocol"], table["why"], strict=True):
        assert f"**{protocol}**: {reason}" in listed
    # So is every cell a column cuts off: a column of long sentences is declared long
    # (the check reads the table, so a new column is covered without being named).
    for column in table.columns:
        assert column in LONG_COLUMNS or table[column].str.len().max() <= 60, column
    for column in LONG_COLUMNS:
        assert all(cell == "—" or cell in listed for cell in table[column]), column
    curve = chart(at, "chart-choose")
    assert any(shape.get("type") == "line" for shape in curve["layout"].get("shapes", []))
    risk = frame(at, "attacker guesses right")
    # Written as the decision record writes it (three significant digits, in percent).
    right, blind = (risk[c].str.rstrip("%").astype(float) for c in RISK_SHARES)
    assert (right >= blind - 1e-9).all()
    fakes = frame(at, "fake users needed")
    assert "(the answer)" in " ".join(fakes["ε"])
    assert "e^ε" in " ".join(m.value for m in at.markdown)
    # ε in context: every published deployment beside the inspected ε, with its source.
    from ldpcore.advice.deployments import DEPLOYMENTS, context_sentence  # noqa: PLC0415

    inspected = float(at.select_slider(key="choose-risk-epsilon").value)
    # The section describes the answer's ε as the sentence prints it (rounded up).
    printed = re.search(r"from ε [=≈] ([0-9.]+)", sentence)
    assert printed and float(printed.group(1)) == inspected
    # The words of the answer, each explained where it is read.
    from ldpcore.present.glossary import GLOSSARY  # noqa: PLC0415

    listed = " ".join(m.value for m in at.markdown)
    for term in ("Base", "ε", "GRR"):
        assert f"- **{term}**: {GLOSSARY[term]}" in listed
    context = frame(at, "compared with yours")
    assert list(context["ε"]) == [d.epsilon for d in DEPLOYMENTS]
    assert {"local", "central"} <= set(context["model"])
    assert context["link"].str.startswith("https://").all()
    assert context_sentence(inspected) in " ".join(m.value for m in at.markdown)
    # the inspected ε after shuffling among the page's n users, and over a year.
    from ldpcore.advice.shuffling import numerical_epsilon  # noqa: PLC0415
    from ldpcore.formats import format_budget  # noqa: PLC0415

    said = " ".join(m.value for m in at.markdown)
    central = numerical_epsilon(inspected, 1_000_000, 1e-6)
    assert f"central ε = {format_budget(central)} at δ = 10⁻⁶" in said
    # A year of daily reports: T·ε by basic composition, said whichever bound is quoted.
    assert "per day for 365 days" in said and f"{format_budget(365 * inspected)}" in said
    # Central figures are compared with the shuffled ε, never with the local one.
    central_rows = context[context["model"] != "local"]
    assert central_rows["compared with yours"].str.contains("after shuffling").all()
    at.selectbox(key="choose-cadence").set_value("once a week, for a year")
    at = at.run()
    assert not at.exception, at.exception
    assert "per week for 52 weeks" in " ".join(m.value for m in at.markdown)


def test_group_queries_on_a_grouped_sample() -> None:
    at = app({"dataset": "sample: countries", "n": "10000", "trials": "5"})
    at.run()
    at.switch_page("pages/queries.py")
    at = at.run()
    at.radio(key="query").set_value("Groups")
    at = at.run()
    assert not at.exception, at.exception
    bars = chart(at, "chart-groups")
    assert bars["data"], "no bars drawn"
    at.pills(key="dataset").set_value("Zipf")
    at = at.run()
    assert "need values with groups" in messages(at)


def test_paper_page_runs_a_quick_recipe_beside_its_claims() -> None:
    at = open_page("pages/paper.py")
    assert "Run the quick mode" in messages(at)
    at.selectbox(key="paper-figure").set_value("ndss-fig10")
    at.button(key="paper-quick").click()
    at = at.run()
    assert not at.exception, at.exception
    claims = frame(at, "claim")
    assert len(claims) == 5
    assert all(
        v.startswith(("✅ holds", "❌ does not hold", "❔ cannot tell")) for v in claims["verdict"]
    )
    assert all("95% interval" in m for m in claims["measured"])
    assert frame(at, "their code") is not None  # where we differ from the authors' code
    assert "Norm-Mul" in " ".join(claims["claim"])
    figure = chart(at, "paper-chart")
    assert "Fig. 10" in figure["layout"]["title"]["text"]


def test_the_collected_example_round_trips() -> None:
    """The example offered on the page, uploaded back with the page's defaults, works."""
    at = open_page("pages/your_data.py")
    example = next(b for b in at.get("download_button") if "Example" in b.proto.label)
    assert example is not None
    from ldpcore.collection.estimates import example_collected  # noqa: PLC0415

    content = example_collected()
    assert content.startswith(b"value,count\n") and content.count(b"\n") == 21
    at.file_uploader(key="collected-upload").set_value(("example.csv", content, "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    table = frame(at, "base_estimate")
    assert len(table) == 20 and table["estimate"].sum() == pytest.approx(1.0)


def test_choose_epsilon_with_good_and_bad_uploads() -> None:
    at = upload(
        open_page("pages/choose_epsilon.py"), "choose", "bad.csv", b"value,count\na,1.5\nb,2\n"
    )
    assert not at.exception, at.exception
    assert "not a whole number" in messages(at) and not at.success
    at.file_uploader(key="choose-upload").set_value(("fruit.csv", HISTOGRAM, "text/csv"))
    at = at.run()
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["OUE"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    at = at.run()
    assert not at.exception, at.exception
    assert at.success and "meets your target" in answer_sentence(at)
    assert list(frame(at, "recommended method")["protocol"]) == ["OUE"]


def test_choose_epsilon_asks_before_a_long_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search estimated over a minute waits for a click, then runs and stays."""
    import streamlit as st  # noqa: PLC0415

    import ldpcore.advice.timing  # noqa: PLC0415

    monkeypatch.setattr(
        ldpcore.advice.timing, "RUNS_PER_PROTOCOL", 10**6
    )  # every search looks long
    st.cache_data.clear()  # the page caches its estimates: start and end without them
    at = open_page("pages/choose_epsilon.py")
    at.multiselect(key="choose-protocols").set_value(["OUE"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    at.slider(key="choose-trials").set_value(5)
    at = at.run()
    assert not at.exception, at.exception
    assert at.warning and "would take about" in at.warning[0].value and not at.success
    at.button(key="choose-go").click()
    at = at.run()
    assert at.success and "meets your target" in answer_sentence(at)
    at.select_slider(key="choose-risk-epsilon").set_value(2.0)
    at = at.run()
    assert at.success and not at.warning  # approved once, kept on later reruns
    st.cache_data.clear()


def test_collected_output_with_bayes_and_a_prior_from_a_bundled_histogram() -> None:
    """Bayes gives credible intervals; a prior from a histogram is matched by value."""
    from ldpcore.collection.estimates import example_collected  # noqa: PLC0415

    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(
        ("example.csv", example_collected(), "text/csv")
    )
    at = at.run()
    at.selectbox(key="collected-method").set_value("Bayes")
    at = at.run()
    assert not at.exception, at.exception
    weak = frame(at, "base_estimate")
    assert weak["estimate"].sum() == pytest.approx(1.0)
    assert ((weak["low"] <= weak["estimate"]) & (weak["estimate"] <= weak["high"])).all()
    assert any("credible" in caption.value for caption in at.caption)

    at.radio(key="collected-prior").set_value("From a histogram I have")
    at = at.run()
    at.selectbox(key="prior-bundled").set_value("countries")
    at.number_input(key="collected-prior-weight").set_value(100_000)
    at = at.run()
    assert not at.exception, at.exception
    informed = frame(at, "base_estimate")
    # The example's truth is the countries' own shares: a heavy prior on them narrows
    # every interval and pulls the estimates to the truth.
    from ldpcore.data.datasets import load_bundled  # noqa: PLC0415

    truth = load_bundled("countries", top_d=20, n=10_000)
    shares = truth.counts / truth.counts.sum()
    assert (informed["high"] - informed["low"]).mean() < (weak["high"] - weak["low"]).mean()
    assert np.abs(informed["estimate"] - shares).sum() < np.abs(weak["estimate"] - shares).sum()


def test_an_unsettled_bayes_sampler_is_said_on_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python warnings do not reach a page: a sampler that stopped before its checks
    passed is said in the warning next to the intervals."""
    from ldpcore.collection.estimates import example_collected  # noqa: PLC0415
    from ldpcore.postprocess import Bayes  # noqa: PLC0415

    # An ESS no run reaches, so that this quick run stops unsettled (the page builds
    # Bayes with its defaults). A seed no other test uploads: the page's cache is shared.
    defaults = Bayes.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "min_ess", 1e9)
    at = open_page("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(
        ("example.csv", example_collected(seed=7), "text/csv")
    )
    at = at.run()
    at.selectbox(key="collected-method").set_value("Bayes")
    at = at.run(timeout=60)
    assert not at.exception, at.exception
    assert "Bayes's sampler had not settled" in messages(at), messages(at)
    assert frame(at, "base_estimate")["estimate"].sum() == pytest.approx(1.0)


def test_choose_epsilon_asks_all_at_once_in_people_s_words() -> None:
    """the target "all values within ±x at once, 95% of the time" gives a
    larger ε than "each value", the chart measures that margin against the target line,
    and the table's headers explain the terms their cells use."""
    at = open_page("pages/choose_epsilon.py")
    at.selectbox(key="choose-bundled").set_value("countries")
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["OLH"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    found = {}
    for kind in ("each", "all"):
        at.selectbox(key="choose-target-kind").set_value(kind)
        at = at.run()
        assert not at.exception, at.exception
        printed = re.search(r"from ε [=≈] ([0-9.]+)", answer_sentence(at))
        assert printed, answer_sentence(at)
        headline = re.search(r"\*\*ε [=≈] ([0-9.]+)", at.success[0].value)
        assert headline and headline.group(1) == printed.group(1), at.success[0].value
        found[kind] = float(printed.group(1))
    assert found["each"] < found["all"]
    curve = chart(at, "chart-choose")
    assert curve["layout"]["yaxis"]["title"]["text"].startswith("±error met by all at once")
    # The table's column headers carry the glossary's words for the terms used below them.
    table = next(e for e in at.dataframe if "recommended method" in e.value.columns)
    config = json.loads(table.proto.columns)
    from ldpcore.present.glossary import GLOSSARY  # noqa: PLC0415

    assert GLOSSARY["Base"] in config["without post-processing (Base)"]["help"]
    assert GLOSSARY["ε"] in config["smallest ε"]["help"]


def test_choose_epsilon_shows_the_command_that_gives_its_table(tmp_path: Path) -> None:
    """The command under Choose ε's answer, run as a person would paste it, names the
    page's method and ε for every protocol it searched."""
    from ldpcore.formats import epsilon_interval  # noqa: PLC0415

    at = open_page("pages/choose_epsilon.py")
    at.selectbox(key="choose-bundled").set_value("countries")
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["GRR", "OUE"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    at = at.run()
    assert not at.exception, at.exception
    (line,) = [c for c in commands(at) if c.startswith("ldpcore choose-epsilon ")]
    ran = run_shown(line, cwd=tmp_path)
    assert ran.returncode == 0, (line, ran.stderr)
    table = frame(at, "recommended method")
    answers = json.loads(ran.stdout)["answers"]
    assert [a["protocol"] for a in answers] == list(table["protocol"])
    for answer, (_, row) in zip(answers, table.iterrows(), strict=True):
        assert answer["method"] == row["recommended method"], line
        said = epsilon_interval(
            answer["epsilon"],
            answer["epsilon_low"],
            answer["epsilon_high"],
            exact=answer["base_exact"] and not answer["post_processing_helps"],
            source=protocol_class(answer["protocol"]).variance_source,
        )
        assert said == row["smallest ε"], (line, said, row["smallest ε"])
