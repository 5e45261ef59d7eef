"""The live class: a poll students answer from their phones, randomized in the browser.

* :mod:`~ldpcore.live.poll` — a poll as stored (question, options, protocol, ε);
* :mod:`~ldpcore.live.store` — polls and reports in SQLite, safe under many writers;
* :mod:`~ldpcore.live.reports` — the report space a browser may send, the export file
  and the class's estimates;
* :mod:`ldpcore.live.web` — the browser's randomizer and answer form (JavaScript).

The browser computes nothing the server decides: every probability comes from the
protocol (``browser_parameters``) and every report is checked by it
(``check_report_row``). It uses :mod:`ldpcore.collection` to turn reports into
estimates and knows nothing of the pages that show them.
"""
