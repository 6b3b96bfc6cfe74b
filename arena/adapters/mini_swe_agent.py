"""mini-swe-agent (PyPI ``mini-swe-agent``), its ``mini`` CLI run unattended.

Flags: ``--yolo`` (run the model's commands without asking), ``--exit-immediately``
(no "new task?" prompt when the agent finishes), ``--cost-limit 0`` (no limit of its own:
the gateway enforces the attempt's limits), ``-c mini.yaml`` (the default tool-calling
config: the model calls a ``bash`` tool, and ends by running
``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` alone) plus ``environment.timeout`` raised
from 30 s so a blocking ``gauntlet-agent submit`` is not killed, and the trajectory
written under /tmp. The model goes to litellm as given (``openai/<name>``), which reads
``OPENAI_BASE_URL``/``OPENAI_API_KEY`` (the launcher also sets ``OPENAI_API_BASE``).
"""

from __future__ import annotations

from arena.adapters.base import Adapter, check_model

COMMAND_TIMEOUT_S = 900  # one shell command of the agent (a submit blocks until judged)


class MiniSweAgent(Adapter):
    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        check_model(model)
        return [
            f"{root or self.root}/bin/{self.cli}",
            "--task-file",
            task_file,
            "--model",
            model,
            "--yolo",
            "--exit-immediately",
            "--cost-limit",
            "0",
            "-c",
            "mini.yaml",
            "-c",
            f"environment.timeout={COMMAND_TIMEOUT_S}",
            "-c",
            f"environment.cwd={workspace}",
            "--output",
            "/tmp/mini-swe-agent/trajectory.json",
        ]


ADAPTER = MiniSweAgent(
    name="mini-swe-agent",
    package="mini-swe-agent",
    version="2.4.6",
    launchers=("gauntlet-mini",),
    cli="gauntlet-mini",
    import_name="minisweagent",
    startup_limit_s=180.0,  # docs/gateway.md: start-up limits
    extra_env={
        "MSWEA_CONFIGURED": "true",  # skip the first-run setup prompt
        "MSWEA_GLOBAL_CONFIG_DIR": "/tmp/mini-swe-agent",
        "MSWEA_COST_TRACKING": "ignore_errors",  # unknown models have no price: not fatal
    },
)
