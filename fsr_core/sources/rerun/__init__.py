"""The Rerun source: ``.rrd`` recordings read with rerun-sdk's own RRD reader.

``source.py`` registers it; ``library.py`` finds rerun-sdk and turns its
exceptions into the project's errors; ``store.py`` opens one recording of a
file (its manifest, then the chunks it needs); ``time_bases.py`` offers the
recording's timelines as time bases; ``columns.py`` gathers an entity's
component rows on one timeline; ``channels.py`` (``Scalars``),
``cameras.py`` (``Image``, ``EncodedImage``, ``DepthImage`` with
``Pinhole``), ``frames.py`` (``Transform3D`` as a transform tree),
``scene.py`` (``Points3D``, ``Boxes3D``, ``LineStrips3D``) and
``events.py`` (``TextLog``) build the model's parts; ``recording_model.py``
puts them together.
"""
