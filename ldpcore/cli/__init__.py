"""The ``ldpcore`` command: one module per subcommand, registered in :data:`COMMANDS`.

A contract that scripts rely on (README.md, "The `ldpcore` command"): the JSON of
``simulate --format json`` and the CSV of ``postprocess``. Input a person got wrong
(:class:`ldpcore.errors.InputError`) ends with exit code 2 and one line on stderr that
starts with ``error:``. Anything else is a bug in ldpcore: exit code 1, one line that
says so and asks for a report, never a traceback (``LDPCORE_TRACEBACK=1`` shows it).

Each command module has ``add_parser(commands)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from types import MappingProxyType, ModuleType
from typing import Final

from ldpcore.cli import (
    _args,
    advise_epsilon,
    aggregate,
    audit,
    choose_epsilon,
    epsilon_context,
    poll,
    postprocess,
    randomize,
    recommend,
    reproduce,
    simulate,
    sweep,
)
from ldpcore.errors import InputError
from ldpcore.extras import missing_extra

#: Subcommand name → its module, in the order ``--help`` lists them.
COMMANDS: Final = MappingProxyType(
    {
        "simulate": simulate,
        "postprocess": postprocess,
        "recommend": recommend,
        "advise-epsilon": advise_epsilon,
        "choose-epsilon": choose_epsilon,
        "epsilon-context": epsilon_context,
        "reproduce": reproduce,
        "randomize": randomize,
        "aggregate": aggregate,
        "sweep": sweep,
        "audit": audit,
        "poll": poll,
    }
)

EXIT_USAGE = 2
EXIT_BUG = 1
#: The reader of stdout went away (``| head``): 128 + SIGPIPE, as the shell reports it.
EXIT_BROKEN_PIPE = 141


def parser() -> _args.Parser:
    """The whole command line."""
    top = _args.Parser(
        prog="ldpcore",
        description="Frequency oracles under local differential privacy and their post-processing.",
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_args.Parser)
    commands.required = True
    for module in COMMANDS.values():
        module.add_parser(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    # A library warning (e.g. an EM cap) reads as one "warning:" line, not a source dump.
    warnings.formatwarning = lambda message, *_args, **_kwargs: f"warning: {message}\n"
    try:
        args = parser().parse_args(argv)
        module: ModuleType = COMMANDS[args.command]
        code: int = module.run(args)
        return code
    except InputError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted (nothing was written)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader stopped reading (`ldpcore … | head`): not an error of ours. Quiet,
        # as a command killed by SIGPIPE is (status 128 + 13), and with stdout pointed
        # at /dev/null so that the interpreter's last flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    except (ImportError, MemoryError) as exc:
        return _short_of(exc)
    except Exception as exc:  # a bug: say so plainly instead of a traceback
        return _bug(exc)


def _short_of(exc: ImportError | MemoryError) -> int:
    """The machine lacks something the command needs: a module or memory."""
    if isinstance(exc, MemoryError):
        hint: str | None = "out of memory; try a smaller domain, fewer samples or fewer trials"
    else:
        # The bare install leaves drawing, clusters and Parquet out: name the extra.
        hint = missing_extra(exc)
    if hint is None:
        return _bug(exc)
    print(f"error: {hint}", file=sys.stderr)
    return EXIT_USAGE


def _bug(exc: BaseException) -> int:
    if os.environ.get("LDPCORE_TRACEBACK"):
        traceback.print_exc()
    print(
        f"error: internal error in ldpcore ({type(exc).__name__}: {_one_line(exc)}). "
        "This is a bug; please report it with the command you ran "
        "(LDPCORE_TRACEBACK=1 shows the details).",
        file=sys.stderr,
    )
    return EXIT_BUG


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


__all__ = ["COMMANDS", "main", "parser"]
