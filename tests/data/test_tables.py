"""Files people bring: bundled datasets, histogram uploads, collected LDP output."""

from __future__ import annotations

import contextlib
import csv
import io
import math

import numpy as np
import pytest
from conftest import K_SIGMA
from hypothesis import given, settings
from hypothesis import strategies as st

from devtools import csv_reference
from ldpcore import bounds
from ldpcore.collection.estimates import consistent_estimates, guess_kind, read_collected
from ldpcore.data import tables
from ldpcore.data.datasets import bundled_names, load_bundled, parse_histogram, read_histogram
from ldpcore.data.tables import DuplicateValuesError, TableError, inspect_table, read_numbers
from ldpcore.protocols import get_protocol

# --- bundled datasets ---------------------------------------------------------------

#: name -> (values, users, number of groups or None). From sample_data/README.md.
BUNDLED = {
    "zipf": (1024, 1_000_000, None),
    "emoji": (1573, 884_427, 98),
    "words": (10_000, 10_000_000, None),
    "countries": (248, 7_624_210_908, 7),
    "ages": (73, 944, None),
}


def test_every_bundled_file_is_described() -> None:
    assert set(bundled_names()) == set(BUNDLED)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_dataset_shape(name: str) -> None:
    values, users, groups = BUNDLED[name]
    data = load_bundled(name)
    assert data.domain_size == values and data.n == users
    assert len(set(data.labels)) == values
    if groups is None:
        assert data.groups is None
    else:
        assert data.groups is not None and len(set(data.groups)) == groups
    assert np.all(data.counts >= 0)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_top_d_and_rescale(name: str) -> None:
    data = load_bundled(name)
    cut = load_bundled(name, top_d=50, n=10_000)
    assert cut.domain_size == 50 and cut.n == 10_000
    # The 50 kept are the 50 most frequent (ties aside), in file order.
    kept = {data.labels.index(label) for label in cut.labels}
    threshold = np.sort(data.counts)[::-1][49]
    assert all(data.counts[i] >= threshold for i in kept)
    assert [data.labels.index(label) for label in cut.labels] == sorted(kept)
    if data.groups is not None:
        assert cut.groups == tuple(data.groups[data.labels.index(lb)] for lb in cut.labels)


def test_emoji_is_heavy_tailed_and_grouped() -> None:
    data = load_bundled("emoji")
    f = np.sort(data.frequencies())[::-1]
    assert f[0] > 0.1 and f[:10].sum() > 0.3  # a few emoji dominate, as in the paper's data
    assert data.groups is not None and "face-smiling" in data.groups


# --- histogram uploads: the good ones -------------------------------------------------


@pytest.mark.parametrize(
    ("content", "labels", "counts"),
    [
        (b"value,count\na,3\nb,4\n", ("a", "b"), [3, 4]),
        (b"\xef\xbb\xbfvalue,count\r\na,3\r\nb,4\r\n", ("a", "b"), [3, 4]),  # BOM, CRLF
        (b"word\tusers\nhi\t3\nyo\t4\n", ("hi", "yo"), [3, 4]),  # TSV, other names
        (b"item;n\nx;1\ny;2\n", ("x", "y"), [1, 2]),  # semicolons
        (b"a,3\nb,4\n", ("a", "b"), [3, 4]),  # no header
        (b"1,3\n2,4\n", ("1", "2"), [3, 4]),  # no header, numeric values
        (b'value,count\n"New York, NY",3\nb,4.0\n', ("New York, NY", "b"), [3, 4]),
        (b"label,note,count\nx,big,1e3\ny,,0\n", ("x", "y"), [1000, 0]),
        (b"value,count\n\n a ,3\n\nb,4\n\n", ("a", "b"), [3, 4]),  # blanks, spaces
    ],
)
def test_good_histograms(content: bytes, labels: tuple[str, ...], counts: list[int]) -> None:
    data = parse_histogram(content)
    assert data.labels == labels and data.counts.tolist() == counts


def test_group_column_and_summing_duplicates() -> None:
    content = b"value,count,group\na,1,g1\nb,2,g2\na,5,g1\n"
    with pytest.raises(DuplicateValuesError, match="1 value\\(s\\) appear on more") as caught:
        parse_histogram(content)
    assert caught.value.duplicates == ("a",)
    data = parse_histogram(content, sum_duplicates=True)
    assert data.counts.tolist() == [6, 2] and data.groups == ("g1", "g2")
    with pytest.raises(TableError, match="a value has one group"):
        parse_histogram(b"value,count,group\na,1,g1\nb,2,g2\na,5,g3\n", sum_duplicates=True)


def test_columns_can_be_chosen_when_ambiguous() -> None:
    content = b"city,in 2019,in 2020\nx,1,2\ny,3,4\n"
    layout = inspect_table(content)
    assert layout.numeric == ("in 2019", "in 2020") and layout.number_column is None
    with pytest.raises(TableError, match="several numeric columns \\(in 2019, in 2020\\)"):
        parse_histogram(content)
    assert parse_histogram(content, count_column="in 2020").counts.tolist() == [2, 4]


@pytest.mark.parametrize(
    ("content", "has_header"),
    [
        (b"value,count\na,1\nb,2\n", True),  # no number in the first row
        (b"city,2019,count\nx,1,5\ny,2,6\n", True),  # a count column's name over numbers
        (b"apple,12\npear,3\n", False),
        (b"count,15\nword,3\n", False),  # the word "count" with its count: data
        (b"city,2019,2020\nx,1,5\ny,2,6\n", False),  # looks like data: see the override
    ],
)
def test_header_guess(content: bytes, has_header: bool) -> None:
    assert inspect_table(content).has_header is has_header


def test_header_can_be_stated() -> None:
    content = b"city,2019,2020\nx,1,5\ny,2,6\n"
    layout = inspect_table(content, header=True)
    assert layout.columns == ("city", "2019", "2020") and layout.numeric == ("2019", "2020")
    data = parse_histogram(content, header=True, count_column="2020")
    assert data.labels == ("x", "y") and data.counts.tolist() == [5, 6]
    # And the other way: "value,count" read as data is then a bad count, said so.
    with pytest.raises(TableError, match="count"):
        parse_histogram(b"value,count\na,1\nb,2\n", header=False)


# --- histogram uploads: every failure has its message ---------------------------------

BAD_UPLOADS = [
    (b"", "is empty"),
    (b"\n \n\t\n", "is empty"),
    (b"\xff\xfevalue", "not UTF-8 text"),
    (b"value,count\x00\n", "NUL bytes"),
    (b"value,label\na,x\nb,y\n", "no numeric column"),
    (b"value,count\na,-1\nb,2\n", "is negative \\(-1\\)"),
    (b"value,count\na,1.5\nb,2\n", "1.5, not a whole number"),
    (b"value,count\na,nan\nb,2\n", "is NaN"),
    (b"value,count\na,inf\nb,2\n", "is infinite"),
    (b"value,count\na,-inf\nb,2\n", "is infinite"),
    (b"value,count\na,lots\nb,2\n", "'lots', not a number"),
    (b"value,count\na,\nb,2\n", "is blank; write 0"),
    (b"value,count\na,1\na,2\n", "appear on more than one row \\('a'\\)"),
    (b"value,count\na,1\n", "has 1 value\\(s\\); at least 2"),
    (b"value,count\na,0\nb,0\n", "every count is 0"),
    (b"value,a,b\nx,1,2\ny,3,4\n", "several numeric columns"),
    (b"value,count\na,1\nb\n", "line 3: expected 2 columns, got 1"),
    (b"value,count\n,1\nb,2\n", "value column \\(value\\) is blank"),
    (b"value,value,count\na,a,1\nb,b,2\n", "names a column twice"),
    (b'value,count\n"a,1\nb,2\n', 'line 2: a quote \\("\\) opens a cell that never closes'),
    (b"value,count\na,1e12\nb,1e12\n", "add up to 2,000,000,000,000 users"),
]


@pytest.mark.parametrize(("content", "message"), BAD_UPLOADS)
def test_bad_uploads(content: bytes, message: str) -> None:
    with pytest.raises(TableError, match=message):
        parse_histogram(content, source="upload.csv")


def test_size_limits(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    big = b"value,count\n" + b"a,1\n" * (bounds.UPLOAD_BYTES_MAX // 4)
    with pytest.raises(TableError, match="the limit is 20 MiB"):
        parse_histogram(big)
    path = tmp_path / "big.csv"
    path.write_bytes(big)
    with pytest.raises(TableError, match="is over 20 MiB"):
        read_histogram(path)
    monkeypatch.setattr(bounds, "DOMAIN_SIZE_MAX", 3)
    with pytest.raises(TableError, match="has 4 values; at most 3"):
        parse_histogram(b"value,count\na,1\nb,1\nc,1\nd,1\n")


def test_unknown_chosen_column() -> None:
    with pytest.raises(TableError, match="has no column 'users'; columns: value, count"):
        parse_histogram(b"value,count\na,1\nb,2\n", count_column="users")
    with pytest.raises(TableError, match="other than the count column"):
        parse_histogram(b"value,count\na,1\nb,2\n", value_column="count")


def test_missing_file(tmp_path) -> None:
    with pytest.raises(TableError, match="does not exist"):
        read_histogram(tmp_path / "nope.csv")


_cell = st.one_of(
    st.text(max_size=6),
    st.integers(-5, 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["", " ", '"', "nan", "1e400", "value", "count", "group", "\ufeff"]),
)


def _as_csv(rows: list[list[str]], delimiter: str) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows(rows)
    return buffer.getvalue().encode("utf-8")


@settings(max_examples=300)
@given(
    rows=st.lists(st.lists(_cell, min_size=0, max_size=4), max_size=8),
    delimiter=st.sampled_from([",", "\t", ";", "|"]),
    sum_duplicates=st.booleans(),
)
def test_any_csv_parses_or_says_why(
    rows: list[list[str]], delimiter: str, sum_duplicates: bool
) -> None:
    """Whatever the file, the result is a valid dataset or a TableError; nothing else."""
    try:
        data = parse_histogram(_as_csv(rows, delimiter), sum_duplicates=sum_duplicates)
    except TableError as exc:
        assert str(exc)
        return
    assert data.domain_size >= 2 and data.n > 0 and np.all(data.counts >= 0)
    assert len(set(data.labels)) == data.domain_size


@settings(max_examples=200)
@given(st.binary(max_size=200))
def test_any_bytes_parse_or_say_why(blob: bytes) -> None:
    with contextlib.suppress(TableError):
        parse_histogram(blob)


# --- collected LDP output -------------------------------------------------------------


def test_collected_counts_and_estimates_agree() -> None:
    oracle = get_protocol("OUE", epsilon=1.0, domain_size=3)
    support = np.array([700, 300, 250])
    counts_file = b"value,count\na,700\nb,300\nc,250\n"
    estimate = oracle.estimate(support, 1000)
    estimates_file = (
        "value,estimate\n"
        + "".join(f"{v},{float(e)!r}\n" for v, e in zip("abc", estimate, strict=True))
    ).encode()
    assert guess_kind(counts_file) == "counts" and guess_kind(estimates_file) == "estimates"
    from_counts = read_collected(counts_file, protocol="OUE", epsilon=1.0, n=1000)
    from_estimates = read_collected(estimates_file, protocol="OUE", epsilon=1.0, n=1000)
    np.testing.assert_allclose(from_counts.estimate, estimate)
    np.testing.assert_allclose(from_estimates.estimate, estimate)
    assert from_estimates.labels == ("a", "b", "c")


@pytest.mark.parametrize(
    ("content", "kwargs", "message"),
    [
        (b"value,count\na,70\nb,300\n", {"n": 100}, "support count of 'b' is 300, more than"),
        (b"value,estimate\na,0.2\nb,nan\n", {}, "is NaN"),
        (b"value,estimate\na,5000\nb,1\n", {}, "name the column 'count'"),
        (b"value,count\na,1.5\nb,1\n", {}, "not a whole number"),
        (b"value,estimate\na,0.5\nb,0.5\n", {"protocol": "XYZ"}, "unknown protocol"),
    ],
)
def test_bad_collected_files(content: bytes, kwargs: dict, message: str) -> None:
    arguments = {"protocol": "GRR", "epsilon": 1.0, "n": 1000, **kwargs}
    with pytest.raises(ValueError, match=message):
        read_collected(content, **arguments)


def test_consistent_estimates_table() -> None:
    content = b"value,estimate\na,0.7\nb,0.35\nc,-0.05\n"
    collected = read_collected(content, protocol="GRR", epsilon=2.0, n=5000)
    table = consistent_estimates(collected, "Norm-Sub")
    assert list(table.columns) == ["value", "base_estimate", "estimate", "low", "high"]
    assert table["estimate"].sum() == pytest.approx(1.0) and (table["estimate"] >= 0).all()
    assert (table["low"] <= table["estimate"]).all()
    assert (table["estimate"] <= table["high"]).all()
    with pytest.raises(ValueError, match="interval level"):
        consistent_estimates(collected, "Norm-Sub", level=95)


@pytest.mark.parametrize("method", ["Base", "Norm-Sub"])
def test_interval_coverage(method: str) -> None:
    """Across repeated collections, the 90% intervals cover the truth about 90% of the time.

    The bound is k·σ of a binomial coverage count, plus 2 points for the normal
    approximation of the support counts the score interval rests on.
    """
    truth = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    n, level, repeats = 20_000, 0.9, 80
    oracle = get_protocol("OUE", epsilon=1.0, domain_size=truth.size)
    counts = np.round(truth * n).astype(np.int64)
    generator = np.random.default_rng(3)
    covered = []
    for _ in range(repeats):
        support = oracle.sample_support_counts(counts, generator)
        content = "value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(support))
        collected = read_collected(content.encode(), protocol="OUE", epsilon=1.0, n=n)
        table = consistent_estimates(collected, method, level=level)
        covered.extend((table["low"] <= truth) & (truth <= table["high"]))
    rate = float(np.mean(covered))
    sigma = math.sqrt(level * (1 - level) / len(covered))
    assert abs(rate - level) < K_SIGMA * sigma + 0.02, rate


def test_support_counts_may_add_up_to_more_than_the_users() -> None:
    """Each OLH report supports about d/(e^ε + 1) values, so at d = 10⁶ and n = 10⁸ the
    support counts add up to ~2.5e13: above the users supported (1e12), and right."""
    n = 200_000_000_000
    rows = "".join(f"v{i},{150_000_000_000}\n" for i in range(10))  # total 1.5e12 > 1e12
    collected = read_collected(("value,count\n" + rows).encode(), protocol="OLH", epsilon=1.0, n=n)
    assert collected.estimate.size == 10 and np.all(np.isfinite(collected.estimate))
    with pytest.raises(ValueError, match="add up to 1,500,000,000,000 users"):
        read_numbers(("value,count\n" + rows).encode())  # a histogram: those are users


def test_a_long_read_reports_its_progress() -> None:
    """reading a large file tells a callback how far it has got."""
    rows = "".join(f"v{i},{i % 7}\n" for i in range(200_000))
    data = ("value,count\n" + rows).encode()
    seen: list[tuple[int, int]] = []
    table = read_numbers(data, progress=lambda *step: seen.append(step))
    assert len(table.labels) == 200_000
    assert len(seen) >= 3 and seen[-1] == (len(data), len(data))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert guess_kind(data) == "counts"  # from the first rows alone


# --- one reader: as Python's csv reads, with the same messages ------------------

GOOD_UPLOADS = [
    b"value,count\na,3\nb,4\n",
    b"value,count\r\na,3\r\nb,4\r\n",
    b"word\tusers\nhi\t3\nyo\t4\n",
    b"item;n\nx;1\ny;2\n",
    b"a,3\nb,4\n",
    b"1,3\n2,4\n",
    b"label,note,count\nx,big,1e3\ny,,0\n",
    b"value,count\n\n a ,3\n\nb,4\n\n",
    b"value,count,group\na,1,g1\nb,2,\nc,5,g1\n",
    b"city,2019,count\nx,1,5\ny,2,6\n",
    b"count,15\nword,3\n",
    b"value,count\na,1_000\nb,2\n",  # float's own rules: an underscore is a digit separator
    b"value,count\n,,\na,1\nb,2\n",  # a row of blanks only
]


def _outcome(read, content: bytes, **kwargs):
    """What a reader makes of ``content``: its table, or its error's type and message."""
    try:
        table = read(content, **kwargs)
    except (TableError, ValueError) as exc:
        duplicates = getattr(exc, "duplicates", None)
        return ("error", type(exc).__name__, str(exc), duplicates)
    if hasattr(table, "numbers"):
        return ("table", table.labels, table.numbers.tolist(), table.groups)
    return ("layout", table)


def _both_readers(read_name: str, content: bytes, **kwargs) -> tuple[object, object]:
    """The product's outcome and the row-by-row ``csv`` reader's (devtools/csv_reference.py)."""
    product = _outcome(getattr(tables, read_name), content, **kwargs)
    return product, _outcome(getattr(csv_reference, read_name), content, **kwargs)


#: Where the product deliberately says something else than the csv reference.
UNCLOSED_QUOTE = b'value,count\n"a,1\nb,2\n'


@pytest.mark.parametrize("sum_duplicates", [False, True])
@pytest.mark.parametrize(
    "content", [c for c, _ in BAD_UPLOADS if c != UNCLOSED_QUOTE] + GOOD_UPLOADS
)
def test_the_reader_gives_csv_s_table_or_message(content: bytes, sum_duplicates: bool) -> None:
    for numbers in ("counts", "estimates"):
        product, reference = _both_readers(
            "read_numbers",
            content,
            source="upload.csv",
            numbers=numbers,
            sum_duplicates=sum_duplicates,
        )
        assert product == reference
    product, reference = _both_readers("inspect_table", content, source="upload.csv")
    assert product == reference


def test_an_unclosed_quote_is_named_with_its_line() -> None:
    """``csv`` let an unclosed quote swallow the rest of the file ("expected 2 columns");
    the reader says where the quote opens and what to do."""
    for content, line in [(UNCLOSED_QUOTE, 2), (b'value,count\n"a\nb",1\nc,2\n"d,3\n', 5)]:
        with pytest.raises(TableError, match=rf"line {line}: a quote \(\"\) opens a cell"):
            read_numbers(content, source="upload.csv")


def test_old_mac_line_ends_read_as_lines() -> None:
    table = read_numbers(b"value,count\ra,3\rb,4\r")
    assert table.labels == ("a", "b") and table.numbers.tolist() == [3.0, 4.0]
    with pytest.raises(TableError, match="line 3: the count of 'b' is negative"):
        read_numbers(b"value,count\ra,3\rb,-4\r")


_plain_cell = st.one_of(
    st.text(
        alphabet=st.characters(exclude_characters=',\t;|"\r\n\ufeff', exclude_categories=["Cs"]),
        max_size=5,
    ),
    st.integers(-3, 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.sampled_from(["", " ", " 7 ", "nan", "1e400", "value", "count", "group", "1_0"]),
)


@settings(max_examples=300)
@given(
    rows=st.lists(st.lists(_plain_cell, min_size=1, max_size=4), min_size=1, max_size=8),
    delimiter=st.sampled_from([",", "\t", ";", "|"]),
    sum_duplicates=st.booleans(),
    header=st.sampled_from([None, True, False]),
)
def test_the_reader_agrees_with_csv_on_any_plain_file(
    rows: list[list[str]], delimiter: str, sum_duplicates: bool, header: bool | None
) -> None:
    """Files without quotes, ragged ones included."""
    content = "".join(delimiter.join(row) + "\n" for row in rows).encode()
    product, reference = _both_readers(
        "read_numbers", content, sum_duplicates=sum_duplicates, header=header
    )
    assert product == reference


_quoted_cell = st.one_of(
    _plain_cell,
    st.sampled_from(["a,b", 'say "hi"', "two\nlines", " , ", '"', "x;y|z\tw", ""]),
)


@settings(max_examples=300)
@given(
    rows=st.lists(st.lists(_quoted_cell, min_size=0, max_size=4), min_size=1, max_size=8),
    delimiter=st.sampled_from([",", "\t", ";", "|"]),
    quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]),
    sum_duplicates=st.booleans(),
)
def test_the_reader_agrees_with_csv_on_quoted_files(
    rows: list[list[str]], delimiter: str, quoting: int, sum_duplicates: bool
) -> None:
    """Quoted cells, delimiters and newlines inside them, and rows of any width."""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, quoting=quoting).writerows(rows)
    content = buffer.getvalue().encode()
    product, reference = _both_readers("read_numbers", content, sum_duplicates=sum_duplicates)
    assert product == reference
    product, reference = _both_readers("inspect_table", content)
    assert product == reference


@settings(max_examples=300)
@given(
    text=st.text(alphabet=st.sampled_from(list('ab1-, \n"\t')), max_size=40),
    sum_duplicates=st.booleans(),
)
def test_the_reader_agrees_with_csv_on_hand_written_quotes(text: str, sum_duplicates: bool) -> None:
    """Quotes where a person might type them: mid-cell, doubled, after spaces."""
    product, reference = _both_readers("read_numbers", text.encode(), sum_duplicates=sum_duplicates)
    if product[0] == "error" and "never closes" in product[2]:
        return  # csv swallows the rest of the file; the reader names the quote instead
    assert product == reference


def test_a_large_file_reads_as_csv_would_and_a_bad_row_has_its_line() -> None:
    """More rows than one chunk of the parser, a quoted multi-line value among them."""
    rows = "".join(f"value {i},{i % 13}\n" for i in range(150_000))
    good = ('value,count\n"two\nlines",5\n' + rows).encode()
    table = read_numbers(good)
    reference = csv_reference.read_numbers(good)
    assert table.labels == reference.labels and table.labels[-1] == "value 149999"
    np.testing.assert_array_equal(table.numbers, reference.numbers)
    bad = good + b"last,-4\n"
    with pytest.raises(TableError, match="line 150004: the count of 'last' is negative"):
        read_numbers(bad, source="big.csv")
