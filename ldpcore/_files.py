"""Files written whole or not at all, through links, and into pipes and devices.

Everything the command line writes goes through :func:`replacing`: the content is
written to a temporary file in the target's folder and renamed over the target only
once complete, so an interrupted run (Ctrl-C, a killed process, a full disk) leaves the
old file or none, never a truncated one that would read as a smaller, complete result.

What is already there is respected:

* a symbolic link stays a link: the file it points to is replaced;
* a target that is not a regular file (``/dev/stdout``, a named pipe, a terminal) is
  written into once the content is complete, never renamed over (as root, renaming
  over ``/dev/stdout`` would replace the device itself);
* a temporary file left by a run that was killed (SIGKILL cannot be caught) is
  removed by the next run writing the same target: its name carries the writer's
  process id, and a file whose writer is no longer running is left over.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ldpcore.errors import InputError


@contextlib.contextmanager
def replacing(target: str | Path, *, what: str = "output") -> Iterator[Path]:
    """Yield a temporary path to write; on success it becomes ``target``'s content.

    Parameters
    ----------
    target : str or Path
        The file to write (a regular file, a link to one, or a pipe or device).
    what : str
        How the file was named by the person (``--output``), for messages.
    """
    path = Path(target)
    if path.is_dir():
        raise InputError(f"{what} {str(path)!r} is a folder; give a file name")
    if path.exists() and not stat.S_ISREG(path.stat().st_mode):
        with _into_stream(path, what=what) as temporary:
            yield temporary
        return
    # A link (even a dangling one) is followed: the file it names is replaced.
    final = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = final.parent if str(final.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            f"cannot write {what} {str(path)!r}: the folder {str(folder)!r} does not exist"
        )
    _remove_left_over(folder, final.name)
    try:
        handle, name = tempfile.mkstemp(
            dir=folder, prefix=f".{final.name}.{os.getpid()}.", suffix=".part"
        )
    except OSError as exc:
        raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.replace(temporary, final)
    except OSError as exc:
        raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        temporary.unlink(missing_ok=True)


@contextlib.contextmanager
def _into_stream(path: Path, *, what: str) -> Iterator[Path]:
    """Collect the content in a private temporary file, then copy it into ``path``."""
    with tempfile.TemporaryDirectory(prefix="ldpcore-") as folder:
        temporary = Path(folder) / "content"
        temporary.touch()
        yield temporary
        try:
            with temporary.open("rb") as source, path.open("wb") as sink:
                shutil.copyfileobj(source, sink)
        except OSError as exc:
            raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None


def _remove_left_over(folder: Path, name: str) -> None:
    """Delete temporary files for ``name`` whose writing process no longer runs."""
    for candidate in folder.glob(f".{name}.*.part"):
        pid_text = candidate.name[len(name) + 2 :].split(".", 1)[0]
        if not pid_text.isdigit() or _running(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            candidate.unlink()


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True
