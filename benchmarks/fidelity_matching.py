"""Time `acptrace fidelity` on a long v1 session whose replay is faithful, half dropped, or
changed throughout (nothing replayed word for word: every item goes to the similarity pass).

    python benchmarks/fidelity_matching.py --turns 3000 --reps 3

Each transcript holds `--turns` prompt turns (the prompt and a 60-word answer in two chunks),
then a `session/load` replaying them; each is compared in its own process, once per round, and
the table gives the median time and peak RSS.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.run import OUT, Contender, measure  # noqa: E402

PYTHON = sys.executable
SESSION = "sess_bench"
VOCABULARY = [f"word{n}" for n in range(2000)]

Replayed = Callable[[int, str], str | None]
"""The replayed answer of turn N (None: left out)."""

REPLAYS: dict[str, Replayed] = {
    "faithful": lambda n, answer: answer,
    "half dropped": lambda n, answer: answer if n % 2 else None,
    "changed throughout": lambda n, answer: answer + " (replayed)",
}


def transcript(turns: int, name: str, replayed: Replayed) -> Path:
    """A v1 session of `turns` prompt turns, then a load replaying them (made once)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"fidelity-{turns}-{name.replace(' ', '-')}.jsonl"
    if path.exists():
        return path
    rng = random.Random(turns)
    lines: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
                                                "agentCapabilities": {"loadSession": True}}},
    ]  # fmt: skip

    def chunk(tag: str, text: str) -> dict[str, object]:
        update = {"sessionUpdate": tag, "content": {"type": "text", "text": text}}
        return {"jsonrpc": "2.0", "method": "session/update",
                "params": {"sessionId": SESSION, "update": update}}  # fmt: skip

    answers = [" ".join(rng.choices(VOCABULARY, k=60)) for _ in range(turns)]
    for n, answer in enumerate(answers):
        prompt = [{"type": "text", "text": f"Question {n}"}]
        lines.append({"jsonrpc": "2.0", "id": 10 + n, "method": "session/prompt",
                      "params": {"sessionId": SESSION, "prompt": prompt}})  # fmt: skip
        half = len(answer) // 2
        lines += [chunk("agent_message_chunk", answer[:half]),
                  chunk("agent_message_chunk", answer[half:])]  # fmt: skip
        lines.append({"jsonrpc": "2.0", "id": 10 + n, "result": {"stopReason": "end_turn"}})
    lines.append({"jsonrpc": "2.0", "id": 1, "method": "session/load",
                  "params": {"sessionId": SESSION, "cwd": "/", "mcpServers": []}})  # fmt: skip
    for n, answer in enumerate(answers):
        lines.append(chunk("user_message_chunk", f"Question {n}"))
        again = replayed(n, answer)
        if again is not None:
            lines.append(chunk("agent_message_chunk", again))
    lines.append({"jsonrpc": "2.0", "id": 1, "result": {}})
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=3000, help="prompt turns in the session")
    parser.add_argument("--reps", type=int, default=3, help="rounds (medians over them)")
    args = parser.parse_args()
    command = [PYTHON, "-m", "acptrace", "fidelity", "--no-config", "-f", "json"]
    found = [
        Contender(name, [*command, str(transcript(args.turns, name, replayed))])
        for name, replayed in REPLAYS.items()
    ]
    timings: dict[str, list[tuple[float, float]]] = {c.name: [] for c in found}
    for _ in range(args.reps):
        for contender in found:
            timings[contender.name].append(measure(contender))
    print(f"| replay ({args.turns} turns) | median s | peak RSS MB |")
    print("|---|---:|---:|")
    for name, runs in timings.items():
        seconds = statistics.median(s for s, _ in runs)
        peak = max(mb for _, mb in runs)
        print(f"| {name} | {seconds:.2f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
