"""Files written whole or not at all.

Everything the command line writes goes through :func:`replacing`: the content is
written to a temporary file in the target's folder and renamed over the target only
once complete, so an interrupted run (Ctrl-C, a killed process, a full disk) leaves the
old file or none, never a truncated one that would read as a smaller, complete result.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ldpcore.errors import InputError


@contextlib.contextmanager
def replacing(target: str | Path, *, what: str = "output") -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``target`` atomically.

    Parameters
    ----------
    target : str or Path
        The file to write.
    what : str
        How the file was named by the person (``--output``), for messages.
    """
    path = Path(target)
    if path.is_dir():
        raise InputError(f"{what} {str(path)!r} is a folder; give a file name")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            f"cannot write {what} {str(path)!r}: the folder {str(folder)!r} does not exist"
        )
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as exc:
        raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        temporary.unlink(missing_ok=True)
