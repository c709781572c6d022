"""The ``__meta__`` TOML of the skelarm logs the tests build by hand.

Imported by the tests of this folder (``from skelarm_meta import ...``).
"""

from __future__ import annotations

__all__ = ["first_link_meta"]


def first_link_meta(version: object = 1, rgy: object = 0.0) -> str:
    """Return the head of a log's meta: schema, producer, base and the first link.

    ``version`` and ``rgy`` are written as given, so ``"{version}"`` keeps a
    placeholder for ``str.format``.
    """
    return f"""schema_version = {version}
producer = "ComputedTorque"

[skeleton]
base_length = 0.0

[[skeleton.links]]
length = 1.0
m = 1.0
i = 0.1
rgx = 0.5
rgy = {rgy}
qmin = -3.0
qmax = 3.0
"""
