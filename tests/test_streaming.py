"""The byte stream under every reader: checking a chunk is UTF-8 without decoding it."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats.formats.streaming import valid_utf8


def python_says_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


# Text that is UTF-8, bytes that mostly are not, and text with a few bytes changed.
spoiled_text = st.tuples(
    st.text(min_size=1, max_size=40).map(str.encode),
    st.dictionaries(st.integers(0, 39), st.integers(0x80, 0xFF), max_size=3),
).map(lambda text_and_changes: bytes(text_and_changes[1].get(position, byte)
                                     for position, byte in enumerate(text_and_changes[0])))
chunks = st.text(max_size=40).map(str.encode) | st.binary(max_size=40) | spoiled_text


@given(chunks)
def test_a_chunk_is_valid_exactly_when_python_decodes_it(data: bytes) -> None:
    checked, replaced = valid_utf8(data)
    if python_says_utf8(data):
        assert checked is data
        assert len(replaced) == 0
    else:
        # Every position kept; each byte Python cannot decode became "?".
        assert len(checked) == len(data)
        assert python_says_utf8(checked)
        assert len(replaced) > 0
        assert set(np.frombuffer(checked, np.uint8)[replaced].tolist()) == {ord("?")}


def test_what_python_refuses_arrow_refuses() -> None:
    # Surrogates, overlong forms, beyond U+10FFFF, a cut character.
    for data in (b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80", b"ab\xe2\x82", b"\xff"):
        assert not python_says_utf8(data)
        assert valid_utf8(data)[0] != data or len(valid_utf8(data)[1]) > 0
    assert valid_utf8("Zoë ♠".encode())[0] == "Zoë ♠".encode()
