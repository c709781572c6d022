"""Integrity profiles and their binary minor versions (all FSR major 1)."""

from __future__ import annotations

from enum import StrEnum

from fsr_core.errors import SchemaError, UnsupportedVersionError

__all__ = ["CURRENT_MINOR", "IntegrityProfile", "minor_for", "profile_for_minor"]


class IntegrityProfile(StrEnum):
    """How much of a file's bytes are covered by digests.

    ``structural`` (1.2, default) validates the complete layout and metadata and
    never reads payloads to open; payloads carry CRC-32s checked when read, but
    no digest, so nothing is reported *verified*. ``fast`` (1.1) adds a SHA-256
    per batch body. ``strong`` (1.0) adds a SHA-256 per record.
    """

    STRONG = "strong"
    FAST = "fast"
    STRUCTURAL = "structural"


_MINORS = {
    IntegrityProfile.STRONG: 0,
    IntegrityProfile.FAST: 1,
    IntegrityProfile.STRUCTURAL: 2,
}
CURRENT_MINOR = 2


def minor_for(profile: IntegrityProfile) -> int:
    """Return the binary minor version a profile is written with."""
    return _MINORS[profile]


def parse_profile(value: object) -> IntegrityProfile:
    """Return the profile named ``value`` or raise :class:`SchemaError`."""
    try:
        return IntegrityProfile(str(value))
    except ValueError as exc:
        raise SchemaError(
            f"unknown integrity profile {value!r} (strong, fast, structural)"
        ) from exc


def profile_for_minor(minor: int, declared: IntegrityProfile) -> IntegrityProfile:
    """Check the header's minor against the metadata's declared profile.

    Minors 0-2 each name one profile. A newer minor (a later 1.x writer) is
    accepted when its metadata names a known profile; its unknown fields are
    ignored.
    """
    if minor > CURRENT_MINOR:
        return declared
    if _MINORS[declared] != minor:
        raise UnsupportedVersionError(
            f"binary version 1.{minor} does not match the declared "
            f"{declared.value} profile (which is 1.{_MINORS[declared]})",
            section="header",
            offset=10,
        )
    return declared
