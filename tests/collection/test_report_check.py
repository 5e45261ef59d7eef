"""Report files uploaded to Your data, checked for fake users' reports."""

from __future__ import annotations

import io

import numpy as np
import pytest
from apptest import frame, messages, open_page

from ldpcore.attacks.detection import size_bounds
from ldpcore.attacks.gains import fake_reports
from ldpcore.collection.estimates import read_collected
from ldpcore.collection.report_check import EXAMPLE_FAKES, EXAMPLE_HONEST, check_report_upload
from ldpcore.collection.report_files import (
    csv_parameter_line,
    reports_to_frame,
    upload_parameters,
)
from ldpcore.errors import InputError
from ldpcore.postprocess import method_class
from ldpcore.present.run_sentences import report_check_words
from ldpcore.protocols import get_protocol
from pages.app_layer.controls.report_uploads import example_reports


def _csv(protocol, reports, *, recorded: bool = True) -> bytes:
    buffer = io.StringIO()
    if recorded:
        buffer.write(csv_parameter_line(protocol) + "\n")
    reports_to_frame(protocol, reports, text=True).to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def _parquet(protocol, reports) -> bytes:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    table = pa.Table.from_pandas(reports_to_frame(protocol, reports, text=False))
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["rpa", "mga"])
def test_the_check_flags_uniform_reports_and_not_padded_ones(kind: str) -> None:
    """Uniform reports at d = 256 (128 ± 8 ones against an honest 69 ± 7) are caught;
    maximal-gain reports padded to an honest count are not (Cao et al., Sec. 6)."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=256)
    rng = np.random.default_rng(5)
    honest = protocol.randomize(rng.integers(0, 256, 3_000), rng)
    fake = fake_reports(protocol, kind, [3, 7], 100, rng)
    data = _csv(protocol, np.concatenate([honest, fake]))
    check = check_report_upload(protocol, data, "reports.csv")
    assert check.users == 3_100
    np.testing.assert_array_equal(check.support, protocol.aggregate(np.concatenate([honest, fake])))
    bounds = size_bounds(protocol)
    assert bounds is not None and (check.low, check.high, check.rate) == (
        bounds.low,
        bounds.high,
        bounds.rate,
    )
    # What is kept is every report whose ones lie within the bounds, counted plainly.
    everyone = np.concatenate([honest, fake])
    ones = everyone.sum(axis=1)
    inside = (ones >= bounds.low) & (ones <= bounds.high)
    assert check.flagged == int((~inside).sum())
    np.testing.assert_array_equal(check.kept_support, everyone[inside].sum(axis=0))
    if kind == "rpa":
        assert (~inside[3_000:]).sum() >= 99  # each escapes with probability below 0.2%
    else:
        assert (~inside[3_000:]).sum() == 0  # padded to an honest count: invisible


def test_honest_reports_are_flagged_at_the_exact_rate() -> None:
    """A 5% false-alarm rate (to see it at all): the flagged count is within k·σ of n·rate."""
    protocol = get_protocol("SUE", epsilon=1.0, domain_size=32)
    rng = np.random.default_rng(9)
    n = 20_000
    data = _csv(protocol, protocol.randomize(rng.integers(0, 32, n), rng))
    check = check_report_upload(protocol, data, "honest.csv", false_alarm=0.05)
    assert check.rate is not None and 0 < check.rate <= 0.05
    sigma = np.sqrt(n * check.rate * (1 - check.rate))
    assert abs(check.flagged - n * check.rate) <= 4 * sigma


def test_parquet_and_csv_read_the_same_and_other_protocols_cannot_tell() -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=8)
    rng = np.random.default_rng(1)
    reports = protocol.randomize(rng.integers(0, 8, 500), rng)
    from_csv = check_report_upload(protocol, _csv(protocol, reports), "r.csv")
    from_parquet = check_report_upload(protocol, _parquet(protocol, reports), "r.parquet")
    np.testing.assert_array_equal(from_csv.support, from_parquet.support)
    assert not from_csv.can_tell and from_csv.flagged == 0
    assert upload_parameters(_csv(protocol, reports), "r.csv")["protocol"] == "GRR"
    assert upload_parameters(_csv(protocol, reports, recorded=False), "r.csv") == {}
    with pytest.raises(InputError, match=r"written for epsilon = 1\.0"):
        check_report_upload(
            get_protocol("GRR", epsilon=2.0, domain_size=8), _csv(protocol, reports), "r.csv"
        )
    with pytest.raises(InputError, match=r"must end in \.parquet or \.csv"):
        check_report_upload(protocol, b"value\n1\n", "r.txt")
    with pytest.raises(InputError, match="has no reports"):
        check_report_upload(protocol, b"value\n", "r.csv")


def test_your_data_checks_the_example_reports_and_estimates_from_the_rest() -> None:
    at = open_page("pages/your_data.py")
    at.radio(key="collected-shape").set_value("The reports, one row per user").run()
    at.file_uploader(key="reports-upload").set_value(
        ("example_oue_reports.csv", example_reports(), "text/csv")
    )
    at = at.run()
    assert not at.exception, at.exception
    # The file's recorded parameters fill the form.
    assert at.number_input(key="reports-d").value == 256
    said = messages(at)
    assert f"{EXAMPLE_FAKES} of {EXAMPLE_HONEST + EXAMPLE_FAKES:,} reports" in said
    assert at.checkbox(key="reports-drop").value is True
    table = frame(at, "estimate")
    # The method on the form is the one recommended; a proper distribution sums to one.
    method = at.selectbox(key="collected-method").value
    assert len(table) == 256
    if method_class(method).sums_to_one == "yes":
        assert table["estimate"].sum() == pytest.approx(1.0)
    at.checkbox(key="reports-drop").uncheck().run()
    assert not at.exception, at.exception
    assert len(frame(at, "estimate")) == 256


def test_she_reports_upload_to_estimates_from_their_real_sums() -> None:
    """SHE's aggregate is real sums: the page must carry them, not their whole parts."""
    she = get_protocol("SHE", epsilon=1.0, domain_size=5)
    rng = np.random.default_rng(0)
    values = rng.choice(5, size=3_000, p=[0.4, 0.3, 0.15, 0.1, 0.05])
    reports = she.randomize(values, rng)
    at = open_page("pages/your_data.py")
    at.radio(key="collected-shape").set_value("The reports, one row per user").run()
    at.file_uploader(key="reports-upload").set_value(("she.csv", _csv(she, reports), "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="reports-protocol").value == "SHE"
    said = messages(at)
    assert "looks like a histogram of true values" not in said, said
    table = frame(at, "estimate")
    base = she.estimate(reports.sum(axis=0), 3_000)
    np.testing.assert_allclose(table["base_estimate"], base, rtol=1e-9, atol=1e-12)


def test_a_dbitflip_report_upload_keeps_what_ding_s_estimator_reads() -> None:
    """The report check's counts carry the users who sampled each value, so the upload's
    estimate is Ding et al.'s of those very reports, with the flagged ones kept or not."""
    protocol = get_protocol("dBitFlipPM", epsilon=1.0, domain_size=24, d_bits=3)
    rng = np.random.default_rng(12)
    reports = protocol.randomize(rng.integers(0, 24, 5_000), rng)
    check = check_report_upload(protocol, _csv(protocol, reports), "r.csv")
    table, users = check.counts_table(drop=True)
    assert table.startswith(b"value,count,sampled\n") and users == 5_000
    collected = read_collected(
        table, protocol="dBitFlipPM", epsilon=1.0, n=users, params={"d_bits": 3}
    )
    np.testing.assert_allclose(
        collected.estimate,
        protocol.estimate_from_tallies(protocol.tally(reports), 5_000),
        atol=1e-12,
    )


def _mga_upload(protocol, n: int, m: int, targets: np.ndarray, seed: int):
    rng = np.random.default_rng(seed)
    weights = np.arange(protocol.domain_size, 0, -1, dtype=float) ** 1.1
    values = rng.choice(protocol.domain_size, size=n, p=weights / weights.sum())
    honest = protocol.randomize(values, rng)
    reports = np.concatenate([honest, fake_reports(protocol, "mga", targets, m, rng)])
    return reports[rng.permutation(len(reports))], np.bincount(values, minlength=32) / n


def test_the_upload_finds_the_maximal_gain_itemset_and_corrects_for_honest_drops() -> None:
    """Padded maximal-gain reports pass the ones count; their targets are the itemset
    found, every fake report is among those dropped, and the corrected estimate of the
    targets is near the truth where Base's is far above it."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=32)
    targets = np.array([3, 9, 20])
    reports, truth = _mga_upload(protocol, 20_000, 800, targets, seed=6)
    check = check_report_upload(protocol, _csv(protocol, reports), "r.csv")
    assert check.flagged == 0 and check.itemsets == ((3, 9, 20),)
    assert 800 <= check.itemset_flagged <= 800 + 2 * check.itemset_honest_share * 20_000
    assert check.itemset_estimate is not None
    sd = np.sqrt(protocol.variance(truth, 20_000)[targets].sum())
    assert abs(check.itemset_estimate[targets].sum() - truth[targets].sum()) < 5 * sd
    base = protocol.estimate(check.support, len(reports))
    assert base[targets].sum() - truth[targets].sum() > 10 * sd
    words = report_check_words(check)
    assert "{3, 9, 20} together" in words and f"{check.itemset_flagged:,} reports" in words


def test_honest_uploads_show_no_itemset() -> None:
    protocol = get_protocol("SUE", epsilon=1.0, domain_size=32)
    reports, _ = _mga_upload(protocol, 20_000, 0, np.array([1, 2]), seed=8)
    check = check_report_upload(protocol, _csv(protocol, reports), "r.csv")
    assert check.itemsets == () and check.itemset_estimate is None
    assert "No two values are supported together" in report_check_words(check)


def test_your_data_estimates_from_the_reports_without_the_itemset() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=32)
    reports, _ = _mga_upload(protocol, 20_000, 800, np.array([3, 9, 20]), seed=6)
    at = open_page("pages/your_data.py")
    at.radio(key="collected-shape").set_value("The reports, one row per user").run()
    at.file_uploader(key="reports-upload").set_value(("r.csv", _csv(protocol, reports), "text/csv"))
    at = at.run()
    assert not at.exception, at.exception
    assert at.checkbox(key="reports-itemsets").value is True
    check = check_report_upload(protocol, _csv(protocol, reports), "r.csv")
    table = frame(at, "estimate")
    np.testing.assert_allclose(table["base_estimate"], check.itemset_estimate, atol=1e-12)
    at.checkbox(key="reports-itemsets").uncheck().run()
    assert not at.exception, at.exception
    base = protocol.estimate(check.support, len(reports))
    np.testing.assert_allclose(frame(at, "estimate")["base_estimate"], base, atol=1e-12)
