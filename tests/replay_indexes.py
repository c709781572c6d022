"""A ``real2sim-replay/v1`` index over a real EmbodiChain recorder root, for tests.

EmbodiChain's exporter (``export_real2sim_replay_manifest``) is in no
published EmbodiChain release, and the receipts, traces and evidence it pins
come from a Real2Sim pipeline that is not public either
(``tests/data/embodichain/README.md``). This module therefore writes a
*stand-in*: a copy of the real ``complete`` root, a few small artifact files
inside it, and an index with the fields the exporter writes
(``docs/`` has no copy of that code; the field names follow EmbodiChain's
published description). The recordings themselves are the recorder's own.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

__all__ = ["ROOT_DATA", "write_replay_index"]

ROOT_DATA = Path(__file__).resolve().parent / "data" / "embodichain" / "complete"


def _pin(root: Path, relative: str, content: bytes) -> dict[str, str]:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return {"path": relative, "sha256": hashlib.sha256(content).hexdigest()}


def write_replay_index(folder: Path) -> tuple[Path, Path]:
    """Copy the recorder root into ``folder`` and write an index over it.

    Returns ``(index path, dataset root)``. Each episode pins a trace and an
    evidence file; episode 1 also a prototype manifest in a source bundle; a
    failed attempt keeps a partial rollout.
    """
    root = folder / "complete"
    shutil.copytree(ROOT_DATA, root)
    rows = [
        json.loads(line)
        for line in (root / "meta" / "embodichain_episodes.jsonl")
        .read_text()
        .splitlines()
        if line.strip()
    ]
    episodes: list[dict[str, Any]] = []
    for row in rows:
        number = row["lerobot_episode_index"]
        base = f"meta/real2sim/episode_{number}"
        row = dict(row)
        row["real2sim_lineage"] = {
            "trace": _pin(
                root, f"{base}/trace.json", f'{{"episode": {number}}}'.encode()
            ),
            "calls": [
                {
                    "call_index": 0,
                    "source_bundle": "bundle0",
                    "prototype_sha256": "0" * 64,
                }
            ],
        }
        row["real2sim_episode_evidence"] = _pin(root, f"{base}/evidence.json", b"{}")
        row["real2sim_artifacts"] = {
            "bundle0": {
                "prototype_manifest": _pin(root, f"{base}/prototype.json", b"[]")
            }
        }
        episodes.append(
            {
                "dataset": str(root),
                "receipt": {"confirmed": True, "commit_id": row.get("commit_id")},
                "sources": [{"call_index": 0, "source_id": row.get("source_id")}],
                "metadata": row,
            }
        )
    rollout = _pin(root, "meta/real2sim/failed/rollout.npz", b"partial")
    index = folder / "replay.json"
    index.write_text(
        json.dumps(
            {
                "schema": "real2sim-replay/v1",
                "read_only": True,
                "recordings": [
                    {
                        "dataset": str(root),
                        "episodes": len(rows),
                        "journal_complete": True,
                    }
                ],
                "episodes": episodes,
                "failed_attempts": [
                    {
                        "dataset": str(root),
                        "path": str(root / "meta/real2sim/failed-attempts/a.json"),
                        "sha256": "1" * 64,
                        "detail": {"reason": "collision", "partial_rollout": rollout},
                    }
                ],
                "source_assets": {},
                "collection_identity_created": False,
            },
            indent=2,
        )
    )
    return index, root
