"""What a batch result keeps of an inspection report and of a comparison."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only resimulate compares: the others never load it
    from fsr_core.compare import Comparison

__all__ = ["comparison_facts", "first_problem", "key_facts"]

#: The FSR container's own top-level facts an index keeps.
_FSR_FACTS = ("version", "profile", "records", "completion", "recovered")


def first_problem(report: dict[str, Any], path: Path) -> str:
    """Return why an invalid report is invalid, as ``inspect`` prints it."""
    verification = report.get("verification") or {}
    integrity = report.get("integrity") or {}
    problems = verification.get("problems") or [integrity.get("reason") or "invalid"]
    problem = " ".join(str(problems[0]).split())
    return problem if problem.startswith(f"{path}: ") else f"{path}: {problem}"


def key_facts(report: dict[str, Any]) -> dict[str, Any]:
    """Return the index entry's fields taken from an ``inspect`` report."""
    integrity = report.get("integrity") or {}
    facts: dict[str, Any] = {
        "channels": [channel.get("name") for channel in report.get("channels", [])],
        "cameras": [
            {"name": camera.get("name"), "frames": camera.get("frames")}
            for camera in report.get("cameras", [])
        ],
    }
    facts.update((key, report[key]) for key in _FSR_FACTS if key in report)
    return {
        "source": report.get("source"),
        "description": report.get("description"),
        "duration_s": report.get("duration_s"),
        "valid": report.get("valid") is True,
        "integrity": integrity.get("status") or "invalid",
        "reason": integrity.get("reason") or "",
        "facts": facts,
    }


def comparison_facts(comparison: Comparison) -> dict[str, Any]:
    """Return the verdict, the first divergence and each channel's largest error."""
    if comparison.exact:
        verdict = "exact"
    elif comparison.within_tolerance:
        verdict = "within tolerance"
    else:
        verdict = "diverges"
    divergence = comparison.first_divergence
    return {
        "verdict": verdict,
        "first_divergence": None if divergence is None else divergence.to_json(),
        "max_error": {
            channel.name: channel.to_json()["max_abs_error"]
            for channel in comparison.channels
        },
        "cameras_max_error": {
            camera.name: camera.to_json()["max_abs_error"]
            for camera in comparison.cameras
        },
    }
