"""One file split across processes gives the very analysis one process gives, byte for byte."""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO, cast

import msgspec
import orjson
import pytest

import acptrace
from acptrace import Options
from acptrace.decode.stream import ReadStats
from acptrace.model.domain import C2A, REQUEST, Message
from acptrace.model.options import Execution
from acptrace.pipeline import pieces as split
from acptrace.pipeline.pool import analyze_many
from acptrace.read.source import BOM, open_input
from acptrace.render.json_report import dumps
from tests.golden import ROOT
from tests.test_fastpath import padded
from tests.transcript import Transcript, options_and_execution


def one_pass(path: Path, **options: Any) -> bytes:
    """The JSON report of one process's analysis."""
    judged, run = options_and_execution(**options)
    return dumps([acptrace.analyze(path, judged, execution=run)])


def split_pass(path: Path, piece_bytes: int = 0, processes: int = 2, **options: Any) -> bytes:
    """The JSON report of the analysis split across processes, whatever the file's size."""
    judged, run = options_and_execution(
        split=processes, split_min_bytes=0, split_piece_bytes=piece_bytes, **options
    )
    return dumps([acptrace.analyze(path, judged, execution=run)])


def is_split(path: Path, **options: Any) -> bool:
    """Whether the walk would split this file (with any size allowed)."""
    judged, run = options_and_execution(split=2, split_min_bytes=0, **options)
    with path.open("rb") as stream:
        records = split.split_records(stream, judged, run, ReadStats())
        if records is None:
            return False
        for _ in records:
            pass
        return True


# -- generated transcripts ------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from benchmarks.generate import generate

    paths = []
    for seed in (26, 28):  # about 1.1 MB each, four kinds of marker findings between them
        path = tmp_path_factory.mktemp("split") / f"faulty-{seed}.jsonl"
        with path.open("wb") as out:
            generate(out, mb=1, sessions=None, seed=seed, faults=0.3)
        paths.append(path)
    return paths


@pytest.mark.parametrize("piece_bytes", [0, 4096, 50_000])
def test_a_generated_transcript_with_faults_splits_into_the_same_analysis(
    generated: list[Path], piece_bytes: int
) -> None:
    for path in generated:
        expected = one_pass(path)
        assert orjson.loads(expected)["findings"]  # the faults are there to be found
        assert one_pass(path, fast=False) == expected  # (runs of updates taken together)
        assert split_pass(path, piece_bytes) == expected, (path.name, piece_bytes)


def test_three_processes_give_the_same_analysis_too(generated: list[Path]) -> None:
    path = generated[0]
    assert split_pass(path, 8192, processes=3) == one_pass(path)


def test_a_walk_over_a_split_file_yields_the_same_steps(generated: list[Path]) -> None:
    path = generated[1]
    judged, run = options_and_execution(split=2, split_min_bytes=0, split_piece_bytes=10_000)
    with acptrace.open_walk(path) as walk:
        alone = [_seen(item) for item in walk]
    with acptrace.open_walk(path, judged, execution=run) as walk:
        split_up = [_seen(item) for item in walk]
    assert split_up == alone


def _seen(item: acptrace.pipeline.analysis.Item) -> object:
    """An item without the payload (a split walk carries none)."""
    return (item.message, item.request) if isinstance(item, acptrace.Step) else item


def test_one_file_given_to_analyze_many_is_split_across_the_jobs(generated: list[Path]) -> None:
    path = generated[0]
    (results,) = analyze_many(
        [str(path)], Options(), jobs=2, execution=Execution(split_min_bytes=0)
    )
    assert isinstance(results, list)
    (result,) = results
    assert isinstance(result, acptrace.Analysis)
    assert dumps([result]) == one_pass(path)


# -- what straddles the cut -----------------------------------------------------------------


def straddling() -> Transcript:
    """Something open across almost every line end: wherever the file is cut, it is cut."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=7)  # pending
    t.update("agent_message_chunk")
    t.resume(id=200)  # a replay window
    t.history(count=3)
    t.raw(b"")
    t.raw(b"  ")
    t.marker()
    t.request("session/list", {}, id=300)
    t.request("session/list", {}, id=300)  # the same id again, still pending
    crlf = t.update("agent_message_chunk")
    t.lines[crlf - 1] += b"\r"
    t.update("plan", at_ms=t.now_ms - 500)  # both clocks go back
    t.result(300, {"sessions": []})
    crlf = t.update("agent_message_chunk")
    t.lines[crlf - 1] += b"\r"  # reported once, not again
    t.update("state_update")
    t.result(200)
    t.result(7, {"stopReason": "end_turn"})
    for _ in range(2):  # another format, reported once
        t.raw(b'{"ts": 1764669700.5, "dir": "client->agent", "msg": {"jsonrpc": "2.0", '
              b'"method": "session/cancel", "params": {"sessionId": "sess_1"}}}')  # fmt: skip
    for hop in ("Client", "Proxy(0)", "Client"):  # a format read with state, in order
        t.raw(orjson.dumps({"type": "notification", "ts": 1.0, "protocol": "acp", "from": hop,
                            "to": "Agent", "method": "session/cancel", "params": {}}))  # fmt: skip
    for line in (t.request("session/list", {}, id=4242), t.result(4242, {"sessions": []})):
        t.lines[line - 1] = t.lines[line - 1].replace(b"4242", str(2**70).encode())  # no msgpack
    t.raw(b"not json")
    t.update("agent_message_chunk", at_ms=t.now_ms - 1_000)
    chunk = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "sess_1"}}
    mono_back: dict[str, Any] = {"mono_ns": 1, "dir": "a2c", "msg": chunk}
    wall_back: dict[str, Any] = {"ts": "2025-12-02T09:00:00.000000Z", "dir": "a2c", "msg": chunk}
    for one_clock_only in ([mono_back, wall_back], [wall_back, mono_back]):
        t.update("agent_message_chunk", at_ms=t.now_ms + 1_000)
        t.timed = False  # one clock goes back, on a record without the other
        for record in one_clock_only:
            t.add(record)
        t.timed = True
        t.update("agent_message_chunk", at_ms=t.now_ms - 500)  # later than each clock's last
    t.resume(id=201)
    t.history(count=2)
    t.close()
    return t


def write(tmp_path: Path, data: bytes, name: str = "cut.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_everything_open_across_the_cut_is_carried_over(tmp_path: Path) -> None:
    data = straddling().text() + b'{"dir": "c2a", "msg": {"jsonrpc"'  # cut off at the end
    path = write(tmp_path, data)
    expected = one_pass(path)
    assert one_pass(path, fast=False) == expected  # (runs of updates taken together)
    analysis = orjson.loads(expected)
    kinds = [issue["kind"] for issue in analysis["issues"]]
    for kind in ("crlf", "time_went_back", "mixed_format", "not_json", "truncated_line"):
        assert kind in kinds, kind
    assert (kinds.count("crlf"), kinds.count("mixed_format")) == (1, 2)  # tee and conductor
    assert "JR-DUPLICATE-ID" in {finding["rule"] for finding in analysis["findings"]}
    assert analysis["resumes"]
    assert analysis["source"]["messages"] > 30
    line_ends = [i for i, byte in enumerate(data) if byte == ord("\n")]
    for piece_bytes in sorted({1, *range(7, len(data), len(data) // 23)}):
        assert split_pass(path, piece_bytes) == expected, piece_bytes
    for cut in line_ends[::5]:  # the first piece ends exactly at one line end after another
        assert split_pass(path, cut + 1) == expected, cut


def test_a_bare_json_rpc_transcript_reports_each_unknown_direction_once(tmp_path: Path) -> None:
    lines = []
    for n in range(40):
        method = f"x/custom{n % 3}"
        lines.append(orjson.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": {}}))
        lines.append(orjson.dumps({"jsonrpc": "2.0", "id": n, "result": {}}))
    path = write(tmp_path, b"\n".join(lines) + b"\n")
    expected = one_pass(path)
    kinds = [issue["kind"] for issue in orjson.loads(expected)["issues"]]
    assert kinds.count("unknown_direction") == 3
    for piece_bytes in (1, 100, 500, 1000):
        assert split_pass(path, piece_bytes) == expected, piece_bytes


@pytest.mark.parametrize("title", [b"1e400", b"9" * 5000], ids=["float", "long-int"])
def test_a_tool_update_with_a_number_out_of_range_in_a_turn_splits_alike(
    tmp_path: Path, title: bytes
) -> None:
    # One process reads a turn's run in the detailed shape: that line ends the run there, and
    # the general path reads it (a valid update for the float, `not_json` for the long int).
    # A piece read ahead reads its runs so too: in the plain shape, which skips the member
    # unchecked, `settled` would have raised reading the line for its activity.
    t = padded()
    t.initialize()
    t.new_session()
    prompt = t.prompt()
    t.update("agent_message_chunk")
    t.tool("c1", tag="tool_call", status="pending", title="Read it")
    odd = t.tool("c1", status="in_progress", title="Read it")
    t.tool("c1", status="completed")
    t.state("idle", stop_reason="end_turn")
    t.result(prompt, {"stopReason": "end_turn"})
    t.lines[odd - 1] = t.lines[odd - 1].replace(b'"Read it"', title)
    path = write(tmp_path, t.text())
    expected = one_pass(path)
    assert orjson.loads(expected)["tool_calls"][0]["end_line"] == odd + 1
    assert split_pass(path, 2000) == expected


def test_a_replayed_tool_update_with_a_long_integer_splits_alike(tmp_path: Path) -> None:
    t = padded()
    t.initialize()
    t.new_session()
    t.resume(id=7)
    t.tool("old", status="completed")  # (the first of its tag: sampled, read on its own)
    t.update("agent_message")
    odd = t.tool("old", status="completed", title="Read it")
    t.update("agent_message")
    t.marker()
    t.result(7)
    t.lines[odd - 1] = t.lines[odd - 1].replace(b'"Read it"', b"9" * 5000)
    path = write(tmp_path, t.text())
    expected = one_pass(path)
    assert one_pass(path, fast=False) == split_pass(path, 2000)
    assert split_pass(path, 2000) == expected


def test_a_byte_order_mark_at_the_start_is_skipped_in_the_first_piece_too(tmp_path: Path) -> None:
    # The first piece, read whole when its lines were counted, was decoded from those bytes,
    # mark and all: line 1 became `not_json` (found by fuzzing).
    t = padded()
    t.initialize()
    t.new_session()
    path = write(tmp_path, BOM + t.text())
    expected = one_pass(path)
    assert orjson.loads(expected)["issues"] == []
    for piece_bytes in (1, 300, 100_000):
        assert split_pass(path, piece_bytes) == expected, piece_bytes


def test_a_joined_recording_whose_open_has_no_monotonic_time_splits_alike(tmp_path: Path) -> None:
    # A piece that ends after such an `open` left the clock at the last recording's times,
    # and the next piece's first time "went back" (found by fuzzing).
    t = padded()
    t.initialize()
    t.close(at_ms=t.now_ms + 6000)
    t.lines.append(b'{"ts":"2025-12-02T10:00:00.000000Z","dir":"meta","event":"open"}')
    t.now_ms = 0
    t.initialize()
    t.new_session()
    prompt = t.prompt()
    for _ in range(5):
        t.update("agent_message_chunk")
    t.result(prompt, {"stopReason": "end_turn"})
    path = write(tmp_path, t.text())
    expected = dumps(acptrace.analyze_file(path))
    assert b"time_went_back" not in expected
    for piece_bytes in (1, 300, 2000):
        run = Execution(split=2, split_min_bytes=0, split_piece_bytes=piece_bytes)
        assert dumps(acptrace.analyze_file(path, execution=run)) == expected, piece_bytes


def test_a_forced_format_and_over_long_lines_are_read_as_in_one_pass(tmp_path: Path) -> None:
    t = straddling()
    t.lines.insert(20, b'{"dir": "a2c", "msg": {"pad": "' + b"x" * 3000 + b'"}}')
    path = write(tmp_path, t.text())
    for options in ({"input_format": "acptrace"}, {"max_line_bytes": 1000}):
        expected = one_pass(path, **options)
        for piece_bytes in (1, 600, 2500):
            assert split_pass(path, piece_bytes, **options) == expected, (options, piece_bytes)


def test_every_corpus_file_splits_into_the_same_analysis(tmp_path: Path) -> None:
    files = sorted((ROOT / "sample_traces").glob("*.jsonl"))
    assert files
    for source in files:
        path = write(tmp_path, source.read_bytes(), source.name)
        expected = one_pass(path)
        for piece_bytes in (1, 2000):
            assert split_pass(path, piece_bytes) == expected, (source.name, piece_bytes)


def test_the_pieces_a_worker_decodes_come_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, straddling().text())
    expected = one_pass(path)
    main, decode, receive = os.getpid(), split._PieceReader.decode, split._Worker.receive
    received: list[bool] = []

    def slow_here(reader: split._PieceReader, piece: split._Piece) -> split._Decoded:
        if os.getpid() == main:  # the worker gets most pieces
            time.sleep(0.005)
        return decode(reader, piece)

    def counted(worker: split._Worker) -> split._Decoded | None:
        got = receive(worker)
        received.append(got is not None)
        return got

    monkeypatch.setattr(split._PieceReader, "decode", slow_here)
    monkeypatch.setattr(split._Worker, "receive", counted)
    assert split_pass(path, 1) == expected
    assert sum(received) > len(received) // 2


def _lost_worker(plan: split._Plan, cursor: split._Cursor, ends: object, taker: int) -> None:
    """A worker that takes a few pieces, slowly, and dies without sending any."""
    file = split._File.open(plan)
    assert file is not None
    for _ in range(4):
        if cursor.take(file, taker) is None:
            break
        time.sleep(0.01)
    os._exit(1)


def test_the_pieces_of_a_worker_that_dies_are_decoded_by_the_main_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, straddling().text())
    expected = one_pass(path)
    monkeypatch.setattr(split, "_work", _lost_worker)
    for piece_bytes in (1, 700):
        assert split_pass(path, piece_bytes, processes=3) == expected


class _Gone:
    """The main process's end of a worker that took pieces and went without sending any."""

    def ready(self) -> bool:
        return False

    def receive(self) -> None:
        return None

    def stop(self) -> None:
        pass


def test_pieces_decoded_again_are_decoded_in_order_whatever_was_decoded_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = straddling().text()
    path = write(tmp_path, data)
    expected = one_pass(path)
    first_tee = data.index(b"client->agent")

    def start(context: object, plan: split._Plan, cursor: split._Cursor, taker: int) -> _Gone:
        """Take every piece up to the first record of another format, then go."""
        file = split._File.open(plan)
        assert file is not None
        while (piece := cursor.take(file, taker)) is not None and piece.end <= first_tee:
            pass
        return _Gone()

    monkeypatch.setattr(split._Worker, "start", start)
    # The main process decodes the next piece (the second record of the other format) ahead,
    # then the gone worker's pieces: its first record is still the one reported.
    assert split_pass(path, 1) == expected


class _Racer:
    """A worker that takes a piece each time just before the main process takes one (the race
    that matters: the piece the main process saw free is gone when it asks for it), and
    decodes it in this process when the join asks for it."""

    def __init__(self, plan: split._Plan) -> None:
        file = split._File.open(plan)
        assert file is not None
        self.file, self.reader = file, split._PieceReader(plan, file)
        self.taken: list[split._Piece] = []

    def ready(self) -> bool:
        return True

    def receive(self) -> split._Decoded:
        return self.reader.decode(self.taken.pop(0))

    def stop(self) -> None:
        self.file.close()


def test_a_piece_taken_by_a_worker_while_the_main_process_asks_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    racers: list[_Racer] = []
    take = split._Cursor.take

    def start(context: object, plan: split._Plan, cursor: split._Cursor, taker: int) -> _Racer:
        racers.append(_Racer(plan))
        return racers[-1]

    def racing(cursor: split._Cursor, file: split._File, taker: int) -> split._Piece | None:
        if taker == split._MAIN and (piece := take(cursor, racers[-1].file, 2)) is not None:
            racers[-1].taken.append(piece)
        return take(cursor, file, taker)

    monkeypatch.setattr(split._Worker, "start", start)
    monkeypatch.setattr(split._Cursor, "take", racing)
    t = straddling()
    for extra in range(2):  # an odd and an even number of pieces: the last is taken away
        path = write(tmp_path, t.text() + b"\n" * extra)
        assert split_pass(path, 1) == one_pass(path), extra


# -- what is not split ----------------------------------------------------------------------


def test_only_big_plain_files_of_a_hot_path_format_are_split(tmp_path: Path) -> None:
    t = straddling()
    path = write(tmp_path, t.text())
    assert is_split(path)
    assert not is_split(path, fast=False)  # a walk that keeps payloads
    with path.open("rb") as stream:
        big = Execution(split=2, split_min_bytes=len(t.text()) + 1)
        assert split.split_records(stream, Options(), big, ReadStats()) is None
    gz = write(tmp_path, gzip.compress(t.text()), "cut.jsonl.gz")
    anything = Execution(split=2, split_min_bytes=0)
    with open_input(gz) as unzipped:
        assert split.split_records(unzipped, Options(), anything, ReadStats()) is None
    memory = io.BufferedReader(io.BytesIO(t.text()))
    assert split.split_records(memory, Options(), anything, ReadStats()) is None
    tee = b"\n".join(
        b'{"ts": 1764669700.5, "dir": "client->agent", "msg": {"jsonrpc": "2.0", "id": %d, '
        b'"method": "session/list", "params": {}}}' % n
        for n in range(40)
    )
    assert not is_split(write(tmp_path, tee, "tee.jsonl"))
    few = b"\n".join(t.lines[:10])  # too few records in the head to settle the format
    assert not is_split(write(tmp_path, few, "few.jsonl"))
    zed = b"[\n" + b",\n".join(
        b'{"_direction": "outgoing", "_type": "notification", '
        b'"method": "session/cancel", "params": {}}'
        for _ in range(40)
    )
    assert not is_split(write(tmp_path, zed + b"\n]\n", "zed.json"))


def test_a_stream_that_is_not_a_file_opened_by_its_path_is_read_in_one_pass() -> None:
    """Only a file opened by its path can be split: any other file-like is read as it is,
    whatever its `fileno()` does (a spooled file is not rolled over to disk to find out)."""
    data = (ROOT / "sample_traces" / "clean.jsonl").read_bytes()
    two = Execution(split=2, split_min_bytes=1)
    expected = acptrace.analyze(io.BytesIO(data))

    with tempfile.SpooledTemporaryFile(max_size=10**9) as spooled:
        spooled.write(data)
        spooled.seek(0)
        assert acptrace.analyze(cast(BinaryIO, spooled), execution=two) == expected
        assert not spooled._rolled  # type: ignore[attr-defined]

    class NoDescriptor(io.RawIOBase):
        def __init__(self) -> None:
            self.inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            return self.inner.readinto(buffer)

        def fileno(self) -> int:
            raise NotImplementedError("no descriptor")

    assert acptrace.analyze(NoDescriptor(), execution=two) == expected  # type: ignore[arg-type]


def _pieces_of(path: Path, piece_bytes: int) -> list[split._Decoded]:
    """Every piece of the file, decoded here as a worker decodes it."""
    with path.open("rb") as stream:
        execution = Execution(split=2, split_min_bytes=1, split_piece_bytes=piece_bytes)
        plan = split._plan(stream, Options(), execution, Options().tag_policy())
        assert plan is not None
        file = split._File(stream.fileno())
        reader = split._PieceReader(plan, file)
        decoded: list[split._Decoded] = []
        at, line = plan.start, 1
        while at < plan.size:
            end = file.line_end(at + piece_bytes - 1, plan.size)
            piece = split._Piece(len(decoded), at, end, line)
            line += file.count_lines(at, end)
            decoded.append(reader.decode(piece))
            at = end
        return decoded


def test_a_decoded_piece_crosses_the_pipe_unchanged(tmp_path: Path) -> None:
    """Messages, runs and hot-path `Found`s go as msgpack, the rest as pickle, and come back
    equal and in place; a piece with a value msgpack cannot hold goes whole as pickle."""
    path = write(tmp_path, straddling().text())
    pieces = _pieces_of(path, 400)
    kinds = {type(other).__name__ for piece in pieces for _, other in piece.others}
    assert {"Found", "UpdateRun", "TimeProbe", "Issue"} <= kinds
    for piece in pieces:
        head, body = split._frames(piece)
        assert split._unframe(head, body) == piece
        assert body or piece.in_order  # (the conductor lines: decoded again by the join)
    huge = msgspec.structs.replace(pieces[0], messages=[Message(1, C2A, REQUEST, id=2**70)])
    head, body = split._frames(huge)
    assert not body
    assert split._unframe(head, body) == huge
