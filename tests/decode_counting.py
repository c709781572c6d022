"""MCAP decoders that count the messages they decode, for tests of what is read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from fsr_core.sources.mcap.container import TopicInfo
from fsr_core.sources.mcap.decoding import Decoder, PlainTree, decoder_for

__all__ = ["counting_decoders"]


def counting_decoders(calls: Counter[str]) -> Callable[[TopicInfo], Decoder]:
    """Return a ``decoder_for`` whose decoders count their messages by topic."""

    def make(info: TopicInfo) -> Decoder:
        found = decoder_for(info)
        real = found.decode
        if real is None:
            return found

        def decode(data: bytes) -> PlainTree:
            calls[info.topic] += 1
            return real(data)

        return Decoder(decode, found.problem)

    return make
