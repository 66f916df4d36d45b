"""The schema check's validator, measured against the packages that could do its job (#38).

    python benchmarks/schema_validators.py                       # 20,000 lines, 5 rounds
    PYTHONPATH=DIR python benchmarks/schema_validators.py        # DIR: fastjsonschema unpacked

Each contender checks the same messages, parsed beforehand, against the ACP v2 schema's
definition of their type: the `session/update`s and the other messages of a generated
realistic transcript (`generate.py`), and a valid example of every request, response and
notification type (tests/schema_examples.py). Timed: compiling what the messages need (once
per run), and checking them (the least of `--reps` rounds, µs a message). Contenders:

- `acptrace` (acptrace/judge/schema/compiler.py): each definition compiled to Python closures
  when first reached; every break with its path, open unions read by their tag.
- `jsonschema` (a dev dependency already: the tests' oracle): `Draft202012Validator`, every
  error (`iter_errors`) or a yes/no (`is_valid`).
- `fastjsonschema`, where importable (not a dependency: `pip download fastjsonschema` and put the
  unpacked wheel on PYTHONPATH): generates Python code per definition; stops at the first error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from acptrace.judge.schema.catalogue import schema  # noqa: E402
from acptrace.judge.schema.compiler import Break  # noqa: E402
from acptrace.model.domain import Direction, MessageKind  # noqa: E402
from benchmarks.run import transcripts  # noqa: E402
from tests.schema_examples import message_types, valid  # noqa: E402

Checked = list[tuple[str, Any]]
"""(definition, value) of each message to check."""


def corpus(lines: int, seed: int) -> Checked:
    """The first `lines` messages of a generated transcript with a v2 definition, and a valid
    example of every v2 message type."""
    version_schema = schema(2)
    found: Checked = []
    with transcripts(20, 1, seed)[0].open("rb") as f:
        for raw in f:
            record = orjson.loads(raw)
            msg = record.get("msg")
            if not isinstance(msg, dict) or "method" not in msg:
                continue
            kind = MessageKind.REQUEST if "id" in msg else MessageKind.NOTIFICATION
            direction = Direction.C2A if record.get("dir") == "c2a" else Direction.A2C
            name = version_schema.calls.get((msg["method"], kind, direction))
            if name is not None:
                found.append((name, msg.get("params", {})))
            if len(found) >= lines:
                break
    found += [(name, valid(2, name)) for name, _, _, _ in message_types(2)]
    return found


def ours() -> tuple[Callable[[str], Callable[[Any], Any]], str]:
    version_schema = schema(2)

    def compile_one(name: str) -> Callable[[Any], Any]:
        check = version_schema.check(name)

        def run(value: Any) -> list[Break]:
            found: list[Break] = []
            check(value, "params", found)
            return found

        return run

    return compile_one, "every break, with its path"


def jsonschema_contender(every: bool) -> tuple[Callable[[str], Callable[[Any], Any]], str]:
    import jsonschema

    defs = dict(schema(2).defs)

    def compile_one(name: str) -> Callable[[Any], Any]:
        validator = jsonschema.Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})
        return (lambda v: list(validator.iter_errors(v))) if every else validator.is_valid

    return compile_one, "every error" if every else "valid or not"


def fastjsonschema_contender() -> tuple[Callable[[str], Callable[[Any], Any]], str] | None:
    try:
        import fastjsonschema  # type: ignore[import-not-found]
    except ImportError:
        return None
    defs = dict(schema(2).defs)

    def compile_one(name: str) -> Callable[[Any], Any]:
        validate = fastjsonschema.compile({"$defs": defs, "$ref": f"#/$defs/{name}"})

        def run(value: Any) -> Any:
            try:
                return validate(value)
            except fastjsonschema.JsonSchemaException as error:
                return error

        return run

    return compile_one, "the first error only"


def measure(
    label: str, contender: tuple[Callable[[str], Callable[[Any], Any]], str], checked: Checked,
    reps: int,
) -> None:  # fmt: skip
    compile_one, says = contender
    started = time.perf_counter()
    compiled = {name: compile_one(name) for name in {name for name, _ in checked}}
    compile_s = time.perf_counter() - started
    best = float("inf")
    for _ in range(reps):
        started = time.perf_counter()
        for name, value in checked:
            compiled[name](value)
        best = min(best, time.perf_counter() - started)
    per = best / len(checked) * 1e6
    print(f"{label:<26} {compile_s * 1000:>10.1f} {per:>10.2f}   {says}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    checked = corpus(args.lines, args.seed)
    print(f"{len(checked):,} messages; compile ms (the definitions they need), check µs/message")
    print(f"{'contender':<26} {'compile':>10} {'check':>10}   reports")
    measure("acptrace (own, compiled)", ours(), checked, args.reps)
    measure("jsonschema iter_errors", jsonschema_contender(True), checked, args.reps)
    measure("jsonschema is_valid", jsonschema_contender(False), checked, args.reps)
    fast = fastjsonschema_contender()
    if fast is None:
        print("fastjsonschema: not importable (see the docstring)")
    else:
        measure("fastjsonschema", fast, checked, args.reps)


if __name__ == "__main__":
    main()
