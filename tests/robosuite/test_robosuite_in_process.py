"""robosuite run in the viewer's own process (the ``robosuite`` extra installed).

The test Python has a MuJoCo robosuite 1.5.2 refuses, so the in-process path
runs in the Python robosuite runs in, which imports this repository's
package (its robosuite side needs numpy and h5py alone): the same request
and sink as the worker's, with frames handed over directly and a cancel
honoured between frames.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from data_paths import TEST_DATA

from fsr_core.simulators.robosuite.availability import Runtime, find_runtime

pytestmark = pytest.mark.robosuite

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
REPO_ROOT = TEST_DATA.parents[1]

# Run in robosuite's Python: render episode 1's recorded cameras in-process,
# then re-simulate it with a cancel after three frames; one JSON line out.
_SCRIPT = """
import json, sys
import h5py, numpy as np
from fsr_core.simulation.protocol import CancelToken
from fsr_core.simulators.robosuite.availability import Runtime, find_runtime
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.runner import run_request

class Sink:
    def __init__(self, cancel=None):
        self.facts, self.frames, self.cancel = {}, [], cancel
    def scene(self, facts):
        self.facts = facts
    def frame(self, frame):
        self.frames.append(frame)
        if self.cancel is not None and len(self.frames) == 3:
            self.cancel.cancel()

runtime = find_runtime()
file = sys.argv[1]
with h5py.File(file, "r", locking=False) as handle:
    kwargs = json.loads(handle["data"].attrs["env_args"])["env_kwargs"]
    recorded = handle["data/demo_1/obs/agentview_image"][()]
    states = handle["data/demo_1/states"][()]
def request(mode, cameras=()):
    return RobosuiteRequest(mode, file, "data/demo_1", "Lift", kwargs, cameras, 32, 32)
render = Sink()
done = run_request(request("render", ("agentview",)), render, runtime)
cancel = CancelToken()
stepped = Sink(cancel)
stopped = run_request(request("resimulate"), stepped, runtime, cancel=cancel)
print(json.dumps({
    "in_process": runtime.python is None,
    "render_error": done.error,
    "frames": len(render.frames),
    "upright": all(np.array_equal(f.images["agentview"], recorded[f.index][::-1])
                   for f in render.frames),
    "states": all(np.array_equal(f.state, states[f.index]) for f in render.frames),
    "cancelled": stopped.cancelled,
    "stepped": len(stepped.frames),
}))
"""


def test_robosuite_in_process_renders_and_stops_on_a_cancel() -> None:
    runtime = find_runtime()
    assert isinstance(runtime, Runtime), runtime  # the test is skipped otherwise
    python = runtime.python or sys.executable
    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH", "")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    env.pop("FSR_VIEWER_ROBOSUITE_PYTHON", None)
    done = subprocess.run(
        [python, "-c", _SCRIPT, str(LIFT)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {
        "in_process": True,
        "render_error": "",
        "frames": 32,
        "upright": True,
        "states": True,
        "cancelled": True,
        "stepped": 3,
    }
