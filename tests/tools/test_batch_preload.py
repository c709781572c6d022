"""The local engine's fork server loads each verb's modules, so workers fork warm.

The fork server ignores a module it cannot import, so a renamed module would
silently make every worker cold again; and it forks, so what it imports must
leave no thread running.
"""

from __future__ import annotations

import pytest
from python_probe import probe_json

from app.headless.batch.engines.preload import preload_modules
from app.headless.batch.items import Verb

_IMPORT_ALL = """
import importlib, json, sys, threading
for name in sys.argv[1:]:
    importlib.import_module(name)
from fsr_core.simulation import registry as simulators
from fsr_core.sources import registry as sources
print(json.dumps({
    "threads": threading.active_count(),
    "simulators": sorted(simulators._REGISTRY),
    "sources_loaded": sources._STATE.plugins_loaded,
    "modules": sorted(sys.modules),
}))
"""


@pytest.mark.parametrize("verb", list(Verb))
def test_each_verb_preloads_modules_that_import_and_leave_no_thread(
    verb: Verb,
) -> None:
    names = preload_modules(verb)
    found = probe_json(_IMPORT_ALL, *names)
    assert found["threads"] == 1
    assert set(names) <= set(found["modules"])
    # The registries are loaded before any worker forks.
    assert "planar_arm" in found["simulators"]
    assert found["sources_loaded"] is True


def test_an_export_worker_forks_with_the_drawing_and_encoding_stack() -> None:
    found = probe_json(_IMPORT_ALL, *preload_modules(Verb.EXPORT))
    assert {"av", "PySide6.QtGui", "app.canvas"} <= set(found["modules"])
    # Validation never draws: its workers stay free of Qt.
    light = probe_json(_IMPORT_ALL, *preload_modules(Verb.VALIDATE))
    assert not any(name.startswith("PySide6") for name in light["modules"])
