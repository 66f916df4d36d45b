"""CAP rules (rules.md §4b): capabilities advertised in `initialize` against the methods used."""

from __future__ import annotations

from typing import Any

import pytest

from tests.transcript import SESSION, Transcript, findings


def connected(result: dict[str, Any], version: int = 2) -> Transcript:
    """A connection whose `initialize` result is `result` (protocol version added)."""
    t = Transcript()
    t.open()
    t.request("initialize", {"protocolVersion": version}, id=0)
    t.result(0, {"protocolVersion": version, **result})
    return t


def caps(findings_: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    return [f for f in findings_ if f[0].startswith("CAP-")]


def test_cap_unadvertised_once_per_method_at_its_first_use_with_the_count() -> None:
    t = connected({"capabilities": {}})  # no `session` member: no session methods
    first = t.request("session/new", {"cwd": "/"})
    t.result(first_id := t.next_id - 1, {"sessionId": SESSION})
    t.request("session/new", {"cwd": "/"})
    t.result(t.next_id - 1, {"sessionId": "sess_2"})
    t.close()
    analysis = t.analyze()
    assert caps(findings(analysis)) == [("CAP-UNADVERTISED", "warning", first)]
    (finding,) = [f for f in analysis.findings if f.rule == "CAP-UNADVERTISED"]
    assert "2 times" in finding.message
    assert "without capabilities.session advertised" in finding.message  # (rules.md §4b's path)
    assert finding.request_id == first_id


@pytest.mark.parametrize(
    ("method", "advertised"),
    [
        ("session/new", {"session": {}}),
        ("session/fork", {"session": {"fork": {}}}),
        ("session/archive", {"session": {"archive": {}}}),
        ("session/unarchive", {"session": {"archive": {}}}),
        ("session/set_title", {"session": {"title": {}}}),
        ("providers/list", {"providers": {}}),
        ("auth/status", {"auth": {"status": {}}}),
    ],
)
def test_cap_unadvertised_not_for_an_advertised_method(
    method: str, advertised: dict[str, Any]
) -> None:
    t = connected({"capabilities": advertised})
    t.request(method, {"sessionId": SESSION})
    t.result(t.next_id - 1)
    assert caps(findings(t.analyze())) == []


@pytest.mark.parametrize(
    ("method", "advertised"),
    [
        ("session/fork", {"session": {}}),  # needs session.fork too
        ("session/delete", {"session": {"fork": {}}}),
        ("session/new", {"session": None}),  # null is not advertised
        ("session/new", {"session": True}),  # only an object advertises
        ("providers/set", {}),
        ("auth/status", {"auth": {}}),
    ],
)
def test_cap_unadvertised_for_a_missing_member(method: str, advertised: dict[str, Any]) -> None:
    t = connected({"capabilities": advertised})
    line = t.request(method, {"sessionId": SESSION})
    t.result(t.next_id - 1)
    assert caps(findings(t.analyze())) == [("CAP-UNADVERTISED", "warning", line)]


def test_auth_login_needs_a_non_empty_auth_methods_list() -> None:
    t = connected({"capabilities": {}, "authMethods": []})
    line = t.request("auth/login", {"methodId": "x"})
    t.result(t.next_id - 1)
    assert caps(findings(t.analyze())) == [("CAP-UNADVERTISED", "warning", line)]
    t = connected({"capabilities": {}, "authMethods": [{"id": "x", "name": "X"}]})
    t.request("auth/login", {"methodId": "x"})
    t.result(t.next_id - 1)
    assert caps(findings(t.analyze())) == []


def test_v1_session_load_without_load_session_is_an_error() -> None:
    t = connected({"agentCapabilities": {"loadSession": False}}, version=1)
    line = t.request("session/load", {"sessionId": SESSION, "cwd": "/"})
    t.result(t.next_id - 1, None)
    analysis = t.analyze()
    assert caps(findings(analysis)) == [("CAP-UNADVERTISED", "error", line)]
    assert "without loadSession advertised" in analysis.findings[0].message  # (v1: as is)


def test_v1_session_load_with_load_session_and_v1_session_capabilities() -> None:
    advertised = {"loadSession": True, "sessionCapabilities": {"close": {}}}
    t = connected({"agentCapabilities": advertised}, version=1)
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"})
    t.result(t.next_id - 1, None)
    t.request("session/close", {"sessionId": SESSION})
    t.result(t.next_id - 1)
    line = t.request("session/fork", {"sessionId": SESSION})  # not advertised: a warning
    t.result(t.next_id - 1)
    assert caps(findings(t.analyze())) == [("CAP-UNADVERTISED", "warning", line)]


def test_not_judged_before_a_successful_initialize_or_for_other_methods() -> None:
    t = Transcript()
    t.request("session/new", {"cwd": "/"})  # no initialize yet
    t.result(t.next_id - 1, {"sessionId": SESSION})
    t.request("initialize", {"protocolVersion": 2}, id=0)
    t.error(0, -32603)  # an error response: still nothing to judge against
    t.request("session/new", {"cwd": "/"})
    t.result(t.next_id - 1, {"sessionId": "sess_2"})
    t.request("initialize", {"protocolVersion": 2}, id=1)
    t.result(1, {"protocolVersion": 2, "capabilities": {}})
    t.request("session/set_config_option", {"sessionId": SESSION})  # not judged
    t.request("_vendor/thing", {})  # extensions: not judged
    t.request("session/load", {"sessionId": SESSION})  # v1-only on v2: not judged
    assert caps(findings(t.analyze())) == []


def test_a_child_needs_its_own_cancel_capability() -> None:
    t = connected({"capabilities": {"session": {}}})
    t.new_session()
    t.update("subagent_update", sessionId="child_1")  # capabilities unset: nothing permitted
    line = t.notify("session/cancel", {"sessionId": "child_1"}, agent=False)
    t.update("subagent_update", sessionId="child_2", capabilities={"cancel": {}})
    t.notify("session/cancel", {"sessionId": "child_2"}, agent=False)
    t.notify("session/cancel", {"sessionId": SESSION}, agent=False)  # the session's own: fine
    analysis = t.analyze()
    assert caps(findings(analysis)) == [("CAP-UNADVERTISED", "warning", line)]
    (finding,) = [f for f in analysis.findings if f.rule == "CAP-UNADVERTISED"]
    assert "without capabilities.cancel advertised" in finding.message


def test_a_childs_capabilities_follow_patch_semantics() -> None:
    t = connected({"capabilities": {"session": {}}})
    t.new_session()
    t.update("subagent_update", sessionId="child_1", capabilities={"cancel": {}})
    t.update("subagent_update", sessionId="child_1", title="renamed")  # omitted: unchanged
    t.notify("session/cancel", {"sessionId": "child_1"}, agent=False)
    t.update("subagent_update", sessionId="child_1", capabilities=None)  # null: cleared
    line = t.notify("session/cancel", {"sessionId": "child_1"}, agent=False)
    assert caps(findings(t.analyze())) == [("CAP-UNADVERTISED", "warning", line)]


def test_cap_not_honoured() -> None:
    t = connected({"capabilities": {"session": {"fork": {}}}})
    t.request("session/fork", {"sessionId": SESSION}, id=7)
    answer = t.error(7, -32601)
    analysis = t.analyze()
    assert caps(findings(analysis)) == [("CAP-NOT-HONOURED", "error", answer)]
    assert analysis.findings[0].request_id == 7
    assert "although capabilities.session.fork was advertised" in analysis.findings[0].message


def test_cap_not_honoured_once_per_method_with_the_count() -> None:
    # rules.md §11: one finding per cause.
    t = connected({"capabilities": {"session": {"fork": {}}}})
    t.request("session/fork", {"sessionId": SESSION}, id=7)
    first = t.error(7, -32601)
    t.request("session/fork", {"sessionId": SESSION}, id=8)
    t.error(8, -32601)
    analysis = t.analyze()
    assert caps(findings(analysis)) == [("CAP-NOT-HONOURED", "error", first)]
    assert "(2 times, the first here)" in analysis.findings[0].message


def test_cap_not_honoured_not_for_an_unadvertised_method_or_another_error() -> None:
    t = connected({"capabilities": {"session": {}}})
    t.request("session/fork", {"sessionId": SESSION})  # not advertised: -32601 is right
    t.error(t.next_id - 1, -32601)
    t.request("session/new", {"cwd": "/"})  # advertised, failing otherwise
    t.error(t.next_id - 1, -32603)
    assert [f[0] for f in caps(findings(t.analyze()))] == ["CAP-UNADVERTISED"]
