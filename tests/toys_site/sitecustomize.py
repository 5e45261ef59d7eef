"""Registers the toys in every Python process of a ``make test-toys`` run (see toy_registry)."""

import os
import sys

if os.environ.get("LDPCORE_TEST_TOYS") == "1":
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if tests not in sys.path:
        sys.path.append(tests)
    from toy_registry import register_toys

    register_toys()
