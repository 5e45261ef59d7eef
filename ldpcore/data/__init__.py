"""Data people bring or the tool ships: datasets, their text specs, and tables read.

* :mod:`~ldpcore.data.datasets` — a :class:`~ldpcore.data.datasets.Dataset` (labels
  and true counts), Zipf and uniform data, the bundled datasets and histograms read
  from files;
* :mod:`~ldpcore.data.specs` — dataset specs (``zipf:d=8``, ``bundled:countries``) as
  frozen values, parsed once;
* :mod:`~ldpcore.data.tables` — reading a table of numbers from a CSV or TSV upload,
  with messages that say which line and column to change.

Below everything that simulates: it knows no protocol and no method. Reports that
users sent (collected output) are not data in this sense; they are in
:mod:`ldpcore.collection`.
"""
