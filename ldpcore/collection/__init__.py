"""Collecting real reports: randomizing on clients, report files, the audit, estimates.

* :mod:`~ldpcore.collection.clients` — randomize a batch of users' values as their
  devices would, and write the reports;
* :mod:`~ldpcore.collection.report_files` — read and aggregate report files (CSV,
  Parquet) in chunks, whatever their size;
* :mod:`~ldpcore.collection.formats` — each protocol family's report format: its
  columns, reader and writer, one report in words, and the column checks;
* :mod:`~ldpcore.collection.report_check` — an uploaded report file checked for fake
  users' reports;
* :mod:`~ldpcore.collection.audit` — measure a randomizer's privacy from its reports;
* :mod:`~ldpcore.collection.estimates` — collected output (reports, support counts or
  a Base estimate) read back into consistent estimates with intervals.

Above the protocols and methods it applies, below the experiments: nothing here
simulates; everything starts from what real users sent.
"""
