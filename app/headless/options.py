"""What the subcommands' parsers share: common options, checked numbers, runners.

Each ``*_commands`` module adds the options every writing command has
(:func:`add_output`, :func:`add_overwrite`, :func:`add_enum_option`) and those
that say how a recording opens (:func:`add_episode`, :func:`add_time_base`,
read back by :func:`open_options`); option types built on
:func:`checked_number` refuse a bad value with an argparse usage error (exit 2)
that names the value and what was expected.

Each subcommand also defines a frozen request dataclass whose fields are named
as its options' ``dest``, and :func:`set_runner` records on its parser which
request it becomes and what runs it: ``app.cli`` parses once, builds that
request from the parsed names and hands it to the runner, which never sees the
parser's namespace. A request refuses options that do not go together by
raising :class:`UsageError`, which the command line reports as a usage error.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, TypeVar

from app.canvas.overlay_registry import default_overlays
from app.canvas.view_model import DEFAULT_VIEW_SIZE, ViewModel
from fsr_core.robots import RobotRequest
from fsr_core.sources import TIME_BASES, OpenOptions, valid_time_base_name

__all__ = [
    "MAX_FPS",
    "MAX_IN_FLIGHT",
    "MAX_SIDE_PX",
    "MAX_TICKS",
    "MIN_FPS",
    "DrawOptions",
    "OpensRecordings",
    "UsageError",
    "add_enum_option",
    "add_episode",
    "add_fps",
    "add_output",
    "add_overlay_flags",
    "add_overwrite",
    "add_time_base",
    "checked_number",
    "episode_option",
    "finite_non_negative",
    "fps_option",
    "open_options",
    "plot_option",
    "set_runner",
    "size_option",
    "speed_option",
    "time_option",
    "whole_number",
]

#: Frame rates an export accepts (the codec's time base is 1/fps).
MIN_FPS = 0.1
MAX_FPS = 1000.0
#: Ticks per generation of ``sample`` (each tick writes a few records).
MAX_TICKS = 100_000
#: Chunks a replay may keep in flight (a window, not a count of work).
MAX_IN_FLIGHT = 1024
#: The largest side of an exported view or a screenshot, in pixels.
MAX_SIDE_PX = 8192

Number = TypeVar("Number", int, float)
Request = TypeVar("Request")


class UsageError(Exception):
    """Options that do not go together: the command line's usage error (exit 2).

    The message is the whole problem, as ``parser.error`` prints it.
    """


def set_runner(
    parser: argparse.ArgumentParser,
    request_type: type[Request],
    run: Callable[[Request], int],
) -> None:
    """Record on ``parser`` the request its options make and the runner of it.

    ``request_type`` is a dataclass whose fields are named as the options'
    ``dest``; ``app.cli`` builds it from the parsed options and calls ``run``
    with it. A :class:`UsageError` raised while it is built goes to
    ``parser.error`` (exit 2).
    """
    parser.set_defaults(request_type=request_type, run=run, command_parser=parser)


class _FlipOverlay(argparse.Action):
    """``--show-X``/``--hide-X``: the overlay set ``overlays`` without its default."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        self._name: str = kwargs.pop("overlay")
        self._shown: bool = not kwargs.pop("shown_by_default")
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: object,
        values: object,
        option_string: str | None = None,
    ) -> None:
        # ``namespace`` is argparse's: typed as anything with our attribute,
        # so nothing outside app/cli.py names the parser's namespace type.
        shown: frozenset[str] = getattr(namespace, self.dest)
        name = frozenset({self._name})
        setattr(namespace, self.dest, shown | name if self._shown else shown - name)


def add_overlay_flags(parser: argparse.ArgumentParser) -> None:
    """Add one flag per registered overlay: ``--show-X`` or ``--hide-X``.

    Each flips that overlay's default (:attr:`Overlay.flag
    <app.canvas.overlay.Overlay.flag>`); together they parse into
    ``overlays``, the names of the overlays drawn. The registry imports no Qt.
    """
    from app.canvas.overlay_registry import overlays

    shown = default_overlays()
    for overlay in overlays():
        verb = "do not draw" if overlay.default else "draw"
        parser.add_argument(
            overlay.flag,
            action=_FlipOverlay,
            dest="overlays",
            default=shown,
            overlay=overlay.name,
            shown_by_default=overlay.default,
            help=f"{verb} {overlay.help} (window: View menu)",
        )


def add_output(
    parser: argparse.ArgumentParser, help: str, *, required: bool = True
) -> None:
    """Add ``-o/--output PATH`` (no default: ``None`` when optional and absent)."""
    parser.add_argument("-o", "--output", type=Path, required=required, help=help)


def add_overwrite(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite``: replace an existing output (atomically)."""
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing output"
    )


def add_enum_option(
    parser: argparse.ArgumentParser, flag: str, default: Enum, help: str
) -> None:
    """Add ``flag`` taking the value of a member of ``default``'s enum."""
    parser.add_argument(
        flag,
        choices=[member.value for member in type(default)],
        default=default.value,
        help=help,
    )


def checked_number(
    text: str,
    convert: Callable[[str], Number],
    accept: Callable[[Number], bool],
    expected: str,
) -> Number:
    """Return ``text`` as a number that ``accept`` takes.

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not a number or not accepted: ``'x': expected <expected>``.
    """
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
    return value


def whole_number(text: str, low: int, high: int, expected: str) -> int:
    """Return ``text`` as a whole number from ``low`` to ``high`` (both in).

    Raises
    ------
    argparse.ArgumentTypeError
        As :func:`checked_number` does.
    """
    return checked_number(text, int, lambda value: low <= value <= high, expected)


def finite_non_negative(value: float) -> bool:
    """Whether ``value`` is finite and at least 0."""
    return math.isfinite(value) and value >= 0


def fps_option(text: str) -> float:
    """``--fps``: a finite rate from :data:`MIN_FPS` to :data:`MAX_FPS`."""
    return checked_number(
        text,
        float,
        lambda value: MIN_FPS <= value <= MAX_FPS,
        f"a rate that must be positive and finite: {MIN_FPS:g} to {MAX_FPS:g} "
        "frames per second, e.g. 30",
    )


def speed_option(text: str) -> float:
    """``--speed``: a finite factor above 0."""
    return checked_number(
        text,
        float,
        lambda value: math.isfinite(value) and 0 < value <= 1e6,
        "a speed factor above 0 and at most 1e6, e.g. 2",
    )


def time_option(text: str) -> float:
    """``--start``, ``--end``, ``--at``: a finite play time in seconds, >= 0."""
    return checked_number(
        text,
        float,
        finite_non_negative,
        "a finite play time in seconds >= 0, e.g. 1.5",
    )


def plot_option(text: str) -> tuple[str, ...]:
    """``--plot``: channel or column keys separated by commas (at least one)."""
    keys = tuple(key.strip() for key in _split_keys(text) if key.strip())
    if not keys:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected channel names separated by commas, e.g. q,dq"
        )
    return keys


def _split_keys(text: str) -> list[str]:
    """Split at commas outside brackets (``arm[q0],arm[q1]`` is two keys)."""
    keys: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            keys.append("".join(current))
            current = []
        else:
            current.append(char)
    keys.append("".join(current))
    return keys


def episode_option(text: str) -> int:
    """``--episode``: an episode index of a dataset, >= 0."""
    return whole_number(text, 0, (1 << 31) - 1, "an episode index >= 0, e.g. 3")


def add_episode(parser: argparse.ArgumentParser) -> None:
    """Add ``--episode N``: which episode of a dataset folder (LeRobot) is meant."""
    parser.add_argument(
        "--episode",
        type=episode_option,
        metavar="N",
        help="the episode N of a dataset (a LeRobot root, an HDF5 file of demos)",
    )


def _time_base_name(text: str) -> str:
    """Return ``--time-base``'s value, refused when no source could offer it."""
    if not valid_time_base_name(text):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r}: expected {', '.join(TIME_BASES)} or a timeline's name"
        )
    return text


def add_time_base(parser: argparse.ArgumentParser) -> None:
    """Add ``--time-base NAME``: which time places a logged message."""
    parser.add_argument(
        "--time-base",
        type=_time_base_name,
        metavar="NAME",
        help="which time places each message on the timeline. An MCAP log or "
        "a ROS bag: log (when it was recorded; the default, or for MCAP "
        "FSR_VIEWER_MCAP_TIME), publish (when it was sent; a bag has none and "
        "stays at log time) or header (its header stamp; a message without "
        "one stays at its log time and the inspector names its topic). "
        "A Rerun recording: the name of one of its timelines (default: the "
        "first its logging code made; inspect lists them). Other kinds of "
        "recording have one time and ignore it",
    )


def add_fps(parser: argparse.ArgumentParser) -> None:
    """Add ``--fps R``: the rate of an image-sequence folder without timestamps."""
    parser.add_argument(
        "--fps",
        type=fps_option,
        metavar="R",
        help="frames per second of an image-sequence folder without "
        "timestamps.csv (default 30); other recordings time themselves",
    )


class OpensRecordings(Protocol):
    """A request that opens recordings: what its ``--time-base`` said."""

    @property
    def time_base(self) -> str | None:
        """A time base's name (``log``, a timeline), or ``None`` for the default."""
        ...


def open_options(request: OpensRecordings) -> OpenOptions:
    """Return how ``request`` asks recordings to open.

    Its ``--time-base``, ``--robot`` and ``--fps`` (the frame rate of an
    image-sequence folder; the player's and ``batch``'s also set the rate of
    their video exports).
    """
    folders = tuple(Path(item) for item in getattr(request, "package_path", ()) or ())
    return OpenOptions(
        time_base=request.time_base,
        fps=getattr(request, "fps", None),
        robot=robot_request(request),
        package_paths=folders or None,
    )


@dataclass(frozen=True, kw_only=True)
class DrawOptions:
    """The drawing options of ``--export`` and ``batch export``, as parsed.

    A request holding them is a subclass, so the parsed names stay its fields.
    """

    overlays: frozenset[str] = field(default_factory=default_overlays)
    """The overlays drawn (the ``--show-X``/``--hide-X`` flags applied)."""
    view: str = "auto"
    camera: str | None = None
    size: tuple[int, int] | None = None
    """Each view's size in pixels (``None``: the export's default)."""
    panel: bool = False
    speed: float = 1.0
    environment: str = ""

    def view_model(self, plots: tuple[tuple[str, ...], ...] = ()) -> ViewModel:
        """Return what these options ask to see, with ``plots`` open."""
        return ViewModel(
            overlays=self.overlays,
            view=self.view,
            camera=self.camera,
            size=self.size or DEFAULT_VIEW_SIZE,
            panel=self.panel,
            speed=self.speed,
            environment=self.environment,
            plots=plots,
        )


def size_option(text: str) -> tuple[int, int]:
    """``--size``: ``WxH`` in pixels, each 16 to :data:`MAX_SIDE_PX`."""
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        size = (0, 0)
    if not sep or not all(16 <= side <= MAX_SIDE_PX for side in size):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected WxH in pixels, each 16..{MAX_SIDE_PX}, e.g. 1280x720"
        )
    return size


def add_robot_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--robot``, ``--package-path``, ``--joint-map`` and ``--joint-units``."""
    group = parser.add_argument_group("robot model")
    group.add_argument(
        "--robot",
        type=Path,
        metavar="FILE",
        help="draw the robot of this URDF or MJCF description, posed by the "
        "recorded joints (its link poses become channels robot/<link>)",
    )
    group.add_argument(
        "--package-path",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="where package://NAME/... meshes are found: DIR is the package NAME "
        "or holds it (repeatable; searched before ROS_PACKAGE_PATH and the "
        "description's own folders)",
    )
    group.add_argument(
        "--joint-map",
        type=Path,
        metavar="FILE.json",
        help='recorded joint names to model joint names: {"recorded": "model"}, '
        "for names the automatic match leaves unmatched",
    )
    group.add_argument(
        "--trail-link",
        metavar="LINK",
        help="the link whose path over the take the tip trail draws (default: "
        "the arm's tip, the deepest link before any gripper finger)",
    )
    group.add_argument(
        "--joint-units",
        choices=("rad", "deg"),
        help="the unit of the recorded revolute joints, whatever the source says",
    )


@dataclass(frozen=True, kw_only=True)
class RobotOptions:
    """The ``--robot`` options of a request that opens recordings."""

    robot: Path | None = None
    package_path: Sequence[Path] = ()
    joint_map: Path | None = None
    joint_units: str | None = None
    trail_link: str | None = None


def robot_request(request: object) -> RobotRequest | None:
    """Return the robot a request's ``--robot`` options name (``None``: none)."""
    path = getattr(request, "robot", None)
    if path is None:
        return None
    return RobotRequest(
        path=Path(path),
        package_paths=tuple(
            Path(item) for item in getattr(request, "package_path", ())
        ),
        joint_map=getattr(request, "joint_map", None),
        joint_units=getattr(request, "joint_units", None),
        trail_link=getattr(request, "trail_link", None),
    )
