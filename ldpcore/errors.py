"""The one exception type for input a person got wrong.

Every check of user-supplied values (parameters, specs, files) raises
:class:`InputError` with a message that names the input, what was received and what
to change. The command line maps it to exit code 2 and one ``error:`` line; the app
shows it as a message. Anything else that escapes is a bug and is reported as one.

It subclasses ``ValueError`` so that callers who catch ``ValueError`` keep working.
"""

from __future__ import annotations


class InputError(ValueError):
    """A value, spec or file supplied by a person that cannot be used as it is."""


class TableError(InputError):
    """A file that cannot be used as it is; the message says what to change."""


__all__ = ["InputError", "TableError"]
