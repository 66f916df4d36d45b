"""A small ACP Agent (stdlib only) that is hard to stop, for drive's and record's stop tests.

    python tests/acp_peers/stubborn_agent.py [options]

It answers `initialize` (v2 `capabilities.session`, or v1 `loadSession`), `session/new`,
`session/resume` and `session/load` (a `replay_complete` marker, then the response).
Options:
  --protocol 1|2     the version it answers `initialize` with (default 2)
  --capabilities J   the capabilities member of its `initialize` result, as JSON
  --ignore-eof       never exit when stdin closes (as codex-acp, claude-agent-acp, gemini)
  --stubborn         --ignore-eof, and ignore SIGTERM, SIGINT and SIGHUP too
  --child PIDFILE    fork a child that ignores SIGTERM and sleeps; its pid is added to PIDFILE
  --own-group        the child leaves the Agent's process group for one of its own (setpgid)
  --flood BYTES      before each replay's response, send about BYTES of `session/update`s
  --flood-after      send them after the response instead (while the Client is closing)
  --say TEXT         write TEXT as one line on stderr at start
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def send(message: dict[str, object]) -> None:
    data = (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def flood(session_id: str, size: int) -> None:
    text = "x" * 4000
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    params = {"sessionId": session_id, "update": update}
    notification = {"method": "session/update", "params": params}
    line = (json.dumps({"jsonrpc": "2.0", **notification}) + "\n").encode()
    batch = line * 64
    for _ in range(max(1, size // len(batch))):
        view = memoryview(batch)
        while view:
            view = view[os.write(1, view) :]


def capabilities(protocol: int, given: str | None) -> tuple[str, object]:
    if protocol == 1:
        member = "agentCapabilities"
        default: object = {"loadSession": True}
    else:
        member = "capabilities"
        default = {"session": {}}
    return member, json.loads(given) if given is not None else default


def fork_child(pidfile: str, own_group: bool) -> None:
    pid = os.fork()
    if pid == 0:
        if own_group:
            os.setpgid(0, 0)  # (as a shell with job control puts each job it starts)
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        os.close(0)  # (it holds no pipe of the Agent's but stdout and stderr, like a tool would)
        while True:
            time.sleep(1)
    with open(pidfile, "a") as out:
        out.write(f"{pid}\n")


def answer(message: dict[str, object], args: argparse.Namespace) -> None:
    method = message.get("method")
    request_id = message.get("id")
    params = message.get("params")
    session_id = params.get("sessionId", "s") if isinstance(params, dict) else "s"
    if method == "initialize":
        member, advertised = capabilities(args.protocol, args.capabilities)
        result: object = {"protocolVersion": args.protocol, member: advertised}
    elif method == "session/new":
        result = {"sessionId": "sess_stubborn"}
    elif method in ("session/resume", "session/load"):
        if args.flood and not args.flood_after:
            flood(str(session_id), args.flood)
        if method == "session/resume":
            marker = {"sessionId": session_id, "update": {"sessionUpdate": "replay_complete"}}
            send({"method": "session/update", "params": marker})
        result = {}
    else:
        send({"id": request_id, "error": {"code": -32601, "message": f"no {method}"}})
        return
    send({"id": request_id, "result": result})
    if args.flood and args.flood_after and method in ("session/resume", "session/load"):
        flood(str(session_id), args.flood)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", type=int, default=2)
    parser.add_argument("--capabilities")
    parser.add_argument("--ignore-eof", action="store_true")
    parser.add_argument("--stubborn", action="store_true")
    parser.add_argument("--child")
    parser.add_argument("--own-group", action="store_true")
    parser.add_argument("--flood", type=int, default=0)
    parser.add_argument("--flood-after", action="store_true")
    parser.add_argument("--say")
    args = parser.parse_args()
    if args.stubborn:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
    if args.say:
        sys.stderr.write(args.say + "\n")
        sys.stderr.flush()
    if args.child:
        fork_child(args.child, args.own_group)
    for line in sys.stdin:
        if line.strip():
            message = json.loads(line)
            if "method" in message and "id" in message:
                answer(message, args)
    while args.stubborn or args.ignore_eof:
        time.sleep(1)


if __name__ == "__main__":
    main()
