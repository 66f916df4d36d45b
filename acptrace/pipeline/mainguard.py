"""Whether starting worker processes would run this call again in each of them.

Under the `spawn` start method each worker imports the caller's main script again (as
`__mp_main__`). A call made from the script's top-level code outside an
`if __name__ == "__main__":` block therefore runs again in every worker: it must not start
workers (it runs in one process instead), and a call reached while a worker imports the
script must not do the work again (it raises).
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from types import FrameType

from acptrace.model.errors import AcptraceError


class StartedInWorker(AcptraceError, RuntimeError):
    """acptrace was called while a worker process was importing the caller's main script."""


def check_not_importing_main() -> None:
    """Raise `StartedInWorker` when this process is a worker still importing the main script."""
    # (a worker imports multiprocessing before the script; a process that has not imported it
    # is no worker, and need not pay for importing it)
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None and getattr(
        multiprocessing.current_process(), "_inheriting", False
    ):
        raise StartedInWorker(
            "acptrace was called while a worker process imported the main script again: "
            'put the call under `if __name__ == "__main__":` (the spawn start method runs '
            "the script's top-level code in every worker)"
        )


def called_from_unguarded_main(frame: FrameType | None = None) -> bool:
    """Whether the caller's main script reached this call from top-level code that a
    spawned worker would run again (not under `if __name__ == "__main__":`)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not isinstance(path, str):
        return False  # an interactive session or `python -c`: a worker imports nothing again
    frame = frame or sys._getframe(1)
    while frame is not None:
        if frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            return frame.f_lineno not in _guarded_lines(path)
        frame = frame.f_back
    return False  # not called from the main script's top level (a thread, a callback)


@cache
def _guarded_lines(path: str) -> frozenset[int]:
    """The lines of a script under a top-level `if __name__ == "__main__":` (none when the
    file cannot be read or parsed: then every call counts as unguarded, the safe side)."""
    try:
        with open(path, "rb") as stream:
            tree = ast.parse(stream.read(), path)
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    lines: set[int] = set()
    for statement in tree.body:
        if isinstance(statement, ast.If) and _is_main_test(statement.test):
            for inner in statement.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return frozenset(lines)


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = {_name_or_text(test.left), _name_or_text(test.comparators[0])}
    return sides == {"name:__name__", "text:__main__"}


def _name_or_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f"text:{node.value}"
    return None
