"""The operator's log: each line with its time, level and logger, to stderr and a file.

The person running a live class reads it behind the server: wrong passcodes and
handover codes (``ldpcore.live.doors``, WARNING, with the address), polls started, closed,
handed over and deleted (``ldpcore.live.store``, INFO), and anything that failed. A log
collector filters on the level and the logger's name, so every line carries both.

Set by the environment of ``make run``: ``LDPCORE_LOG_LEVEL`` (DEBUG, INFO, WARNING,
ERROR; default INFO) and ``LDPCORE_LOG_FILE`` (a file the lines are appended to as well).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

from ldpcore.errors import InputError

#: The environment variables the launcher reads.
LEVEL_VARIABLE = "LDPCORE_LOG_LEVEL"
FILE_VARIABLE = "LDPCORE_LOG_FILE"
#: Time (ISO 8601, to the millisecond), level, logger name, message: one line each.
LOG_FORMAT = "%(asctime)s.%(msecs)03d %(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"
#: The loggers the app writes: the core's and the pages'.
APP_LOGGERS = ("ldpcore", "pages")
#: The levels a person may name.
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def log_settings(environ: Mapping[str, str] | None = None) -> tuple[int, Path | None]:
    """The level and the file the environment asks for, checked.

    Examples
    --------
    >>> log_settings({"LDPCORE_LOG_LEVEL": "warning"})
    (30, None)
    >>> log_settings({})
    (20, None)
    """
    env = os.environ if environ is None else environ
    raw = env.get(LEVEL_VARIABLE, "INFO").strip().upper()
    if raw not in LEVELS:
        raise InputError(f"{LEVEL_VARIABLE}={raw!r}: use one of {', '.join(LEVELS)}")
    file = env.get(FILE_VARIABLE, "").strip()
    path = Path(file) if file else None
    if path is not None and not path.parent.is_dir():
        raise InputError(
            f"{FILE_VARIABLE}={file!r}: the folder {str(path.parent)!r} does not exist"
        )
    return logging.getLevelName(raw), path


def configure_logging(level: int = logging.INFO, path: Path | None = None) -> list[logging.Handler]:
    """Send the app's loggers to standard error (and ``path``), one formatted line each.

    Called once by the launcher; called again it replaces its own handlers, never adds a
    second copy of every line. Returns the handlers it installed.
    """
    formatter = logging.Formatter(LOG_FORMAT, DATE_FORMAT)
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if path is not None:
        handlers.append(logging.FileHandler(path, encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.set_name("ldpcore-operator-log")
    for name in APP_LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == "ldpcore-operator-log"]:
            logger.removeHandler(old)
            old.close()
        for handler in handlers:
            logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False  # one line each, not again through the root's handlers
    return handlers


__all__ = [
    "FILE_VARIABLE",
    "LEVELS",
    "LEVEL_VARIABLE",
    "LOG_FORMAT",
    "configure_logging",
    "log_settings",
]
