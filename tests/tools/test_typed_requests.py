"""The command line parses once into the typed request of each subcommand."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.cli import SUBCOMMANDS, _parser, request_from
from app.headless.batch.command import _video_template
from app.headless.batch.options import BatchRequest
from app.headless.options import UsageError

#: The shortest command line of each subcommand.
SHORTEST = {
    "inspect": ["inspect", "a.fsr"],
    "recover": ["recover", "a.fsr", "b.fsr"],
    "sample": ["sample", "a.fsr"],
    "demo": ["demo"],
    "simulate": ["simulate", "scenario.toml", "-o", "a.fsr"],
    "compare": ["compare", "a.fsr", "b.fsr"],
    "convert": ["convert", "a.sklog.npz"],
    "resimulate": ["resimulate", "a.sklog.npz", "-o", "b.sklog.npz"],
    "replay": ["replay", "a.fsr", "--mode", "render", "-o", "b.fsr"],
    "batch": ["batch", "validate", "a.fsr"],
}


def test_every_subcommand_has_a_shortest_line() -> None:
    assert set(SHORTEST) == SUBCOMMANDS


@pytest.mark.parametrize("command", sorted(SHORTEST))
def test_every_field_of_a_request_is_a_parsed_name(command: str) -> None:
    args = _parser().parse_args(SHORTEST[command])
    request = request_from(args)

    assert dataclasses.is_dataclass(request)
    assert isinstance(request, args.request_type)
    for field in dataclasses.fields(request):
        assert field.name in vars(args), f"{command}: nothing parses {field.name}"
        assert getattr(request, field.name) == getattr(args, field.name)


def test_a_request_is_frozen() -> None:
    request = request_from(_parser().parse_args(SHORTEST["compare"]))

    with pytest.raises(dataclasses.FrozenInstanceError):
        request.tolerance = 1.0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"verb": "convert"}, "batch convert needs --out DIR for its outputs"),
        ({"verb": "index"}, "batch index needs -o INDEX.json"),
        ({"verb": "index", "output": Path("i.txt")}, "-o i.txt: an index is"),
        ({"verb": "validate", "resume": True}, "--resume reads what --report"),
        ({"verb": "validate", "inputs": "object-store"}, "--inputs goes with"),
        ({"verb": "validate", "start": 2.0, "end": 1.0}, "--start 2 is after --end 1"),
    ],
)
def test_a_batch_request_refuses_options_that_do_not_go_together(
    options: dict[str, object], problem: str
) -> None:
    with pytest.raises(UsageError, match=problem):
        BatchRequest(paths=[Path("a.fsr")], **options)  # type: ignore[arg-type]


def test_batch_export_draws_with_the_export_options() -> None:
    request = BatchRequest(
        verb="export",
        paths=[Path("a.fsr")],
        out=Path("videos"),
        fps=12.0,
        speed=2.0,
        view="both",
        camera="front",
        panel=True,
        overlays=frozenset({"com", "targets"}),
        environment="env1",
        start=0.5,
        end=1.5,
    )

    video = _video_template(request)

    shown = video.shown
    assert (video.fps, shown.speed, shown.size) == (12.0, 2.0, (800, 800))
    assert (shown.view, shown.camera, shown.environment) == ("both", "front", "env1")
    assert (shown.panel, shown.overlays, video.overwrite) == (
        True,
        frozenset({"com", "targets"}),
        False,
    )
    assert (video.start_s, video.end_s) == (0.5, 1.5)
    sized = dataclasses.replace(request, size=(320, 240))
    assert _video_template(sized).shown.size == (320, 240)
