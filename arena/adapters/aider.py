"""aider (PyPI ``aider-chat``) run on one message, unattended.

``--message-file`` (one request, then exit), ``--yes-always``, ``--no-git`` (the workspace
stays free of a ``.git``; files are added by the launcher's ``--add-workspace-files``),
``--edit-format diff`` (SEARCH/REPLACE blocks, whatever the model's default), the chat
history files under /tmp, no update check, analytics, release notes, URL detection,
shell-command suggestions, pretty/fancy terminal output or auto-lint, no model warnings
(a gateway model name is often unknown to aider). Iteration: ``--auto-test`` with
``--test-cmd gauntlet-submit-check``: after each edit aider submits; the check exits
non-zero unless every reported test passed, so aider hands the feedback back to the
model and retries (aider's own reflection limit, 3, bounds the loop).
"""

from __future__ import annotations

from arena.adapters.base import Adapter, check_model


class Aider(Adapter):
    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        check_model(model)
        root = root or self.root
        return [
            f"{root}/bin/{self.cli}",
            "--model",
            model,
            "--message-file",
            task_file,
            "--yes-always",
            "--no-git",
            "--no-auto-commits",
            "--edit-format",
            "diff",
            "--no-show-model-warnings",
            "--no-check-update",
            "--analytics-disable",
            "--no-show-release-notes",
            "--no-detect-urls",
            "--no-suggest-shell-commands",
            "--no-pretty",
            "--no-fancy-input",
            "--no-auto-lint",
            "--map-tokens",
            "0",
            "--auto-test",
            "--test-cmd",
            f"{root}/bin/gauntlet-submit-check",
            "--chat-history-file",
            "/tmp/aider/chat.history.md",
            "--input-history-file",
            "/tmp/aider/input.history",
            "--no-restore-chat-history",
            "--encoding",
            "utf-8",
            "--add-workspace-files",
        ]


ADAPTER = Aider(
    name="aider",
    package="aider-chat",
    version="0.86.2",
    launchers=("gauntlet-aider", "gauntlet-submit-check"),
    cli="gauntlet-aider",
    import_name="aider",
    startup_limit_s=180.0,  # docs/gateway.md: start-up limits
    extra_env={"AIDER_ANALYTICS": "false", "AIDER_CHECK_UPDATE": "false"},
)
