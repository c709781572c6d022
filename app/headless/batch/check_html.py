"""``batch check --html``: one self-contained page of what the checks found.

The page holds no external asset: the dataset's summary, one histogram per
metric drawn on a ``<canvas>`` by the page's own script (bars that hold an
outlier in red, the fences as dashed lines), and the flagged recordings
ranked (the file-breaking kinds first, then by their number of flags), each
with a thumbnail at its first flag (its camera's frame, else its scene drawn
as the window draws it) embedded as a ``data:`` URI. Strings from the recordings
are escaped; the data travels as JSON the script reads.
"""

from __future__ import annotations

import base64
import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Final

import numpy as np

from app.headless.batch.check_report import dataset_key
from app.headless.export.atomic import atomic_output, write_failed
from fsr_core.checks import ERROR_KINDS, EpisodeMetrics, Thresholds, dataset_fences
from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel

__all__ = ["MAX_THUMBNAILS", "write_check_html"]

MAX_THUMBNAILS: Final = 200
"""Flagged recordings shown with a thumbnail (the rest are listed without)."""
THUMBNAIL_SIZE: Final = (160, 120)
_ERROR_NAMES: Final = frozenset(kind.value for kind in ERROR_KINDS)

_SCRIPT: Final = r"""
const data = JSON.parse(document.getElementById('check-data').textContent);
let drawn = 0;
for (const hist of data.histograms) {
  const canvas = document.getElementById(hist.id);
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, pad = 24;
  const values = hist.values.filter(v => v !== null);
  const marks = [...values, ...hist.fences];
  let lo = Math.min(...marks), hi = Math.max(...marks);
  if (!(hi > lo)) { hi = lo + 1; }
  const bins = 24, counts = new Array(bins).fill(0), bad = new Array(bins).fill(false);
  const at = v => Math.min(bins - 1, Math.floor((v - lo) / (hi - lo) * bins));
  hist.values.forEach((v, i) => {
    if (v === null) return;
    counts[at(v)] += 1;
    if (hist.outliers[i]) bad[at(v)] = true;
  });
  const top = Math.max(...counts, 1), bw = (w - 2 * pad) / bins;
  ctx.fillStyle = '#ffffff'; ctx.fillRect(0, 0, w, h);
  let bars = 0;
  counts.forEach((c, b) => {
    if (!c) return;
    const bh = (h - 2 * pad) * c / top;
    ctx.fillStyle = bad[b] ? '#d62728' : '#4c78a8';
    ctx.fillRect(pad + b * bw + 1, h - pad - bh, bw - 2, bh);
    bars += 1;
  });
  ctx.strokeStyle = '#333'; ctx.beginPath();
  ctx.moveTo(pad, h - pad); ctx.lineTo(w - pad, h - pad); ctx.stroke();
  ctx.setLineDash([4, 3]); ctx.strokeStyle = '#d62728';
  for (const f of hist.fences) {
    const x = pad + (f - lo) / (hi - lo) * (w - 2 * pad);
    ctx.beginPath(); ctx.moveTo(x, pad / 2); ctx.lineTo(x, h - pad); ctx.stroke();
  }
  ctx.setLineDash([]); ctx.fillStyle = '#333'; ctx.font = '11px sans-serif';
  ctx.fillText(lo.toPrecision(3), pad, h - 6);
  const right = hi.toPrecision(3);
  ctx.fillText(right, w - pad - ctx.measureText(right).width, h - 6);
  canvas.dataset.bars = String(bars);
  drawn += 1;
}
document.body.dataset.histograms = String(drawn);
"""

_STYLE: Final = """
body { font: 14px sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.hists { display: flex; flex-wrap: wrap; gap: 16px; }
.hist { border: 1px solid #ccc; padding: 6px; }
.hist div { font-weight: bold; margin-bottom: 4px; }
table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd;
  padding: 4px 8px; text-align: left; vertical-align: top; }
img { width: 160px; height: 120px; object-fit: contain; background: #eee; }
.error { color: #b00; font-weight: bold; }
"""


def _camera_picture(model: RecordingModel, time_s: float) -> np.ndarray | None:
    """Return the first picture camera's frame at ``time_s``, thinned; else None."""
    for camera in model.cameras:
        if camera.values is not None:
            continue  # a depth camera
        index = camera.index_at(time_s)
        if index is None:
            continue
        pixels = camera.fetch(index)[0].pixels
        step = max(1, -(-pixels.shape[1] // THUMBNAIL_SIZE[0]))
        return np.ascontiguousarray(pixels[::step, ::step])
    return None


def _scene_picture(model: RecordingModel, time_s: float) -> np.ndarray | None:
    """Return the scene drawn as the window draws it (Qt, offscreen); else None."""
    if not model.has_scene:
        return None
    from app.canvas.view_model import ViewModel
    from app.headless.export.frames import FrameSource
    from app.headless.export.video import ensure_gui_app

    ensure_gui_app()
    shown = ViewModel(size=THUMBNAIL_SIZE, view="scene", overlays=frozenset())
    rgb: np.ndarray = FrameSource(model, shown).render(time_s)
    return rgb


def _thumbnail(address: str, time_s: float) -> str | None:
    """Return a ``data:`` URI of the recording at ``time_s``: camera, else scene."""
    from fsr_core.media.registry import encode_frame
    from fsr_core.sources import open_recording

    try:
        model = open_recording(Path(address))
        at = min(max(time_s, 0.0), model.duration_s)
        picture = _camera_picture(model, at)
        if picture is None:
            picture = _scene_picture(model, at)
        if picture is None:
            return None
        png = encode_frame("png", picture)
    except (FsrError, ValueError, OSError):
        return None
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _histograms(
    results: list[dict[str, Any]], thresholds: Thresholds
) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        if isinstance(result.get("metrics"), dict) and result.get("status") != "failed":
            groups[dataset_key(str(result.get("recording") or result["input"]))].append(
                result
            )
    histograms = []
    for number, (key, members) in enumerate(sorted(groups.items())):
        metrics = [EpisodeMetrics.from_json(result["metrics"]) for result in members]
        for fence in dataset_fences(metrics, thresholds):
            outliers = [
                value is not None
                and (
                    value > fence.high or (fence.low is not None and value < fence.low)
                )
                for value in fence.values
            ]
            histograms.append(
                {
                    "id": f"hist-{number}-{fence.metric}",
                    "dataset": key,
                    "metric": fence.metric,
                    "values": list(fence.values),
                    "outliers": outliers,
                    "fences": [f for f in (fence.low, fence.high) if f is not None],
                }
            )
    return histograms


def _rank(result: dict[str, Any]) -> tuple[int, int]:
    flags = result.get("flags") or []
    errors = sum(flag.get("kind") in _ERROR_NAMES for flag in flags)
    return (-errors, -len(flags))


def _flag_text(flag: dict[str, Any]) -> str:
    kind = html.escape(str(flag.get("kind")))
    css = ' class="error"' if flag.get("kind") in _ERROR_NAMES else ""
    where = html.escape(str(flag.get("channel") or "recording"))
    return (
        f"<li><span{css}>{kind}</span> {where} "
        f"{flag.get('start_s')}-{flag.get('end_s')} s: value {flag.get('value')}, "
        f"threshold {flag.get('threshold')}</li>"
    )


def _flagged_rows(results: list[dict[str, Any]]) -> str:
    flagged = sorted((r for r in results if r.get("flags")), key=_rank)
    rows = []
    for number, result in enumerate(flagged):
        flags = result["flags"]
        address = str(result.get("recording") or result["input"])
        image = (
            _thumbnail(address, float(flags[0].get("start_s") or 0.0))
            if number < MAX_THUMBNAILS
            else None
        )
        picture = f'<img alt="thumbnail" src="{image}">' if image else "(no picture)"
        index = result.get("episode")
        episode = "" if index is None else f"<br>episode {html.escape(str(index))}"
        items = "".join(_flag_text(flag) for flag in flags)
        rows.append(
            f"<tr><td>{number + 1}</td><td>{picture}</td><td>{html.escape(address)}"
            f"{episode}</td><td><ul>{items}</ul></td></tr>"
        )
    return "\n".join(rows)


def _summary(results: list[dict[str, Any]]) -> str:
    kinds: dict[str, int] = defaultdict(int)
    for result in results:
        for flag in result.get("flags") or []:
            kinds[str(flag.get("kind"))] += 1
    failed = sum(result.get("status") == "failed" for result in results)
    flagged = sum(bool(result.get("flags")) for result in results)
    counts = "".join(
        f"<li>{html.escape(kind)}: {count}</li>"
        for kind, count in sorted(kinds.items())
    )
    return (
        f"<p>{len(results)} recordings checked, {flagged} flagged, {failed} could not "
        f"be checked.</p><ul>{counts}</ul>"
    )


def check_page(results: list[dict[str, Any]], thresholds: Thresholds) -> str:
    """Return the page's HTML text."""
    histograms = _histograms(results, thresholds)
    canvases = "".join(
        f'<div class="hist"><div>{html.escape(h["metric"])}</div>'
        f'<canvas id="{h["id"]}" width="320" height="160"></canvas></div>'
        for h in histograms
    )
    data = json.dumps({"histograms": histograms}, allow_nan=False).replace("</", "<\\/")
    failures = "".join(
        f"<li>{html.escape(str(r.get('error')))}</li>"
        for r in results
        if r.get("status") == "failed"
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<title>fsr-viewer batch check</title><style>{_STYLE}</style></head><body>"
        f"<h1>fsr-viewer batch check</h1>{_summary(results)}"
        f'<h2>Metrics</h2><div class="hists">{canvases}</div>'
        "<h2>Flagged recordings</h2><table><tr><th>#</th><th>picture</th>"
        f"<th>recording</th><th>flags</th></tr>{_flagged_rows(results)}</table>"
        + (f"<h2>Not checked</h2><ul>{failures}</ul>" if failures else "")
        + f'<script type="application/json" id="check-data">{data}</script>'
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_check_html(
    path: Path,
    results: list[dict[str, Any]],
    thresholds: Thresholds,
    *,
    overwrite: bool = False,
) -> None:
    """Publish the page at ``path`` atomically (over a file only with ``overwrite``).

    Raises
    ------
    WriteFailedError
        It cannot be written.
    """
    text = check_page(results, thresholds)
    with atomic_output(path, overwrite=overwrite) as handle:
        try:
            handle.write(text.encode("utf-8"))
        except OSError as exc:
            raise write_failed(exc, path) from exc
