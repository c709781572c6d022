"""What the fork server loads once, so every local worker forks warm.

A local worker is forked from the fork server, so whatever the server has
imported a worker has without paying for it, however many workers a run
starts or replaces. :func:`preload_modules` names, per verb, the modules the
server imports: the batch work itself, the registries
(:mod:`~app.headless.batch.engines.warm_registries`) and the verb's own heavy
modules (the export's drawing and encoding stack). Importing
modules and loading the registries starts no thread and opens no file, so
forking after it is safe; the export's ``QGuiApplication`` is still made in
each worker, after the fork, as Qt requires.

The fork server of a process is started once, by the first run that needs
it, with that run's list; a later run of another verb in the same process
gets that server as it is (its workers load the rest as they go).
"""

from __future__ import annotations

from typing import Final

from app.headless.batch.items import Verb

__all__ = ["preload_modules"]

_WORK: Final = (
    "app.headless.batch.work",
    "app.headless.batch.engines.warm_registries",
)

_VERB_MODULES: Final[dict[Verb, tuple[str, ...]]] = {
    Verb.VALIDATE: (),
    Verb.EXPORT: (
        "app.headless.export.request",
        "app.headless.export.video",
        "app.canvas.camera_canvas",
        "app.canvas.geometry_canvas",
        "app.canvas.panel",
        "app.canvas.qt_app",
        "app.canvas.scene_canvas",
    ),
    Verb.CONVERT: (),
    Verb.RESIMULATE: ("fsr_core.compare", "fsr_core.replay.engine"),
    Verb.INDEX: (),
    Verb.CHECK: ("fsr_core.checks", "av"),
}


def preload_modules(verb: Verb) -> list[str]:
    """Return the modules the fork server imports for a run of ``verb``."""
    return [*_WORK, *_VERB_MODULES[verb]]
