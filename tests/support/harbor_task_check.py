"""Runs INSIDE the gauntlet-harbor image (Python 3.13, Harbor installed): loads the task
directory given as argv[1] with Harbor's own task model and prints what it found as JSON.

Any exception (a TaskConfig validation error, Task's own input-path or test-script checks)
ends the run with a non-zero exit and Harbor's traceback on stderr.
"""

import json
import sys
import tomllib
from pathlib import Path

from harbor.models.task.config import TaskConfig
from harbor.models.task.task import Task

task = Path(sys.argv[1])
cfg = TaskConfig.model_validate(tomllib.loads((task / "task.toml").read_text()))
loaded = Task(task)  # its own input-path and test-script checks (each step's, for [[steps]])
steps = []
for step in loaded.config.steps or []:
    solve = loaded.paths.discovered_step_solve_path_for(step.name, None)
    steps.append(
        {
            "name": step.name,
            "instruction": loaded.step_instruction(step.name),
            "solve": None if solve is None else str(Path(solve).relative_to(task)),
        }
    )
json.dump({"workdir": cfg.environment.workdir, "name": loaded.name, "steps": steps}, sys.stdout)
