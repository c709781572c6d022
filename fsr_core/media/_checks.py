"""Argument, size and buffer checks shared by the frame, the codecs and the registry."""

from __future__ import annotations

from fsr_core.errors import DecodeError, LimitExceededError, SchemaError

#: The multiplication sign between image dimensions in messages.
TIMES = "\N{MULTIPLICATION SIGN}"
_MAX_REASON_DETAIL = 60


def check_found_size(
    codec: str, found_width: int, found_height: int, width: int, height: int, limit: int
) -> None:
    check_limit(found_width, found_height, limit)
    if (found_width, found_height) != (width, height):
        raise SchemaError(
            f"{codec} image is {found_width}{TIMES}{found_height} px, "
            f"expected {width}{TIMES}{height} px"
        )


def check_mode(codec: str, mode: str) -> None:
    if mode != "RGB":
        raise DecodeError(f"{codec} image has mode {mode!r}, expected 'RGB'")


def check_limit(width: int, height: int, max_pixels: int) -> None:
    if width * height > max_pixels:
        raise LimitExceededError(
            f"image of {width}{TIMES}{height} px exceeds the limit of "
            f"{max_pixels} pixels"
        )


def check_request(width: int, height: int, max_pixels: int) -> None:
    check_positive_int("width", width)
    check_positive_int("height", height)
    check_positive_int("max_pixels", max_pixels)
    check_limit(width, height, max_pixels)


def check_positive_int(label: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{label} must be at least 1, got {value}")


def int_option(
    options: dict[str, object], key: str, default: int, low: int, high: int
) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{key} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be in {low}..{high}, got {value}")
    return value


def byte_view(payload: bytes | memoryview) -> memoryview:
    try:
        view = memoryview(payload)
    except TypeError as exc:
        raise TypeError(
            f"payload must be bytes or a memoryview, got {type(payload).__name__}"
        ) from exc
    if view.format == "B" and view.ndim == 1:
        return view
    if not view.c_contiguous:
        raise ValueError("payload memoryview must be C-contiguous")
    return view.cast("B")


def detail(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if len(text) > _MAX_REASON_DETAIL:
        text = text[: _MAX_REASON_DETAIL - 3] + "..."
    return text
