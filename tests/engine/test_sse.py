"""The server-sent events reader under streamed answers: whatever way the bytes are split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pingpong.core.sse import EventReader

STREAM = ("data: {\"a\": 1}\n\n"
          ": a comment the server sends to keep the line open\r\n"
          "event: thread.message\r\ndata: first line\r\ndata:second line\r\n\r\n"
          "id: 7\rretry: 100\rdata: ünïcode — “quoted”\r\r"
          "data: [DONE]\n\n").encode()
EVENTS = [(None, '{"a": 1}'), ("thread.message", "first line\nsecond line"),
          (None, "ünïcode — “quoted”"), (None, "[DONE]")]


def _read(pieces: list[bytes]) -> list[tuple[str | None, str]]:
    reader = EventReader()
    return [event for piece in pieces for event in reader.feed(piece)]


def test_events_of_a_stream_read_whole():
    assert _read([STREAM]) == EVENTS


def test_a_crlf_split_between_two_reads_ends_one_line():
    head, tail = STREAM.split(b"second line\r\n", 1)
    assert _read([head + b"second line\r", b"\n" + tail]) == EVENTS


def test_an_event_comes_only_once_its_blank_line_has():
    reader = EventReader()
    assert reader.feed(b"data: x\n") == []
    assert reader.feed(b"\n") == [(None, "x")]
    assert reader.feed(b"data: half a li") == [] and reader.feed(b"ne\n\n") == [(None, "half a line")]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_events(cuts):
    points = sorted(set(cuts))
    pieces = [STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)]
    assert _read(pieces) == EVENTS
