"""Rules on capabilities advertised in `initialize` against the methods used (rules.md §4b)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import NotHonoured, UnadvertisedUse
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Severity

SETUP = "SETUP (initialization, capabilities)"


@rule("CAP-UNADVERTISED", Severity.WARNING, "capabilities", SETUP, UnadvertisedUse)
def unadvertised(observed: UnadvertisedUse) -> Iterator[Verdict]:
    """The Client uses a method whose capability the `initialize` result did not advertise."""
    first = observed.first
    times = "once" if observed.count == 1 else f"{observed.count} times"
    yield Verdict(
        first.line,
        f"{first.method} used {times} without {observed.capability} advertised in the "
        "initialize result",
        first.session_id,
        first.id,
        level=Severity.ERROR if observed.v1_load else None,
    )


@rule("CAP-NOT-HONOURED", Severity.ERROR, "capabilities", SETUP, NotHonoured)
def not_honoured(observed: NotHonoured) -> Iterator[Verdict]:
    """The Agent advertised a method's capability and answers it -32601 (once per method)."""
    request = observed.request
    times = "" if observed.count == 1 else f" ({observed.count} times, the first here)"
    yield Verdict(
        observed.response.line,
        f"{request.method} answered -32601 (method not found){times} although "
        f"{observed.capability} was advertised",
        request.session_id,
        request.id,
    )
