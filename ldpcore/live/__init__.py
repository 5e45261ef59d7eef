"""The live class: a poll students answer from their phones, randomized in the browser.

* :mod:`~ldpcore.live.poll` — a poll as stored (question, options, protocol, ε);
* :mod:`~ldpcore.live.database` — the SQLite file: its tables, durability, what is hashed;
* :mod:`~ldpcore.live.keys` — who runs a poll: the teacher's key, handovers, the operator;
* :mod:`~ldpcore.live.admission` — who is counted: seats per address, reports held for
  the teacher, refusals and bursts;
* :mod:`~ldpcore.live.store` — what a teacher and a student do with a poll;
* :mod:`~ldpcore.live.doors` — tries at a secret, slowed and locked per address;
* :mod:`~ldpcore.live.reports` — the report space a browser may send, the export file
  and the class's estimates;
* :mod:`~ldpcore.live.browser` — the protocols the browsers run: each one's parameters
  for the randomizer and the check of what a browser sends;
* :mod:`ldpcore.live.web` — the browser's randomizer and answer form (JavaScript).

The browser computes nothing the server decides: every probability comes from the
protocol (:mod:`ldpcore.live.browser`) and every report is checked by it
(its form's ``check_row``). It uses :mod:`ldpcore.collection` to turn reports into
estimates and knows nothing of the pages that show them.
"""
