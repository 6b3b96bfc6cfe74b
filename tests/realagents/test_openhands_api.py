"""Issue 34 item 8: the API OpenHands speaks is pinned. Its SDK, left on ``api_mode="auto"``,
picks the Responses API (``POST /v1/responses``) for model names LiteLLM lists with that
endpoint (``gpt-4.1-mini``) and Chat Completions for others; the launcher's LLM
(``openhands_run.make_llm``) speaks Chat Completions for every name, as README, docs/gateway.md
and ``gauntlet agents`` say. Asked of the tree's own SDK on its own Python 3.13 (no model
call: the choice is made from the name)."""

from __future__ import annotations

import json
import subprocess

import pytest

from arena.adapters.build import ensure_agent_tree

pytestmark = pytest.mark.slow

ASK = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import openhands_run
from openhands.sdk import LLM
from pydantic import SecretStr
out = {}
for name in ("gpt-4.1-mini", "gpt-5", "fake-model"):
    pinned = openhands_run.make_llm(name, "http://127.0.0.1:9/v1", "tok")
    auto = LLM(model=f"openai/{name}", base_url="http://127.0.0.1:9/v1", api_key=SecretStr("tok"), usage_id="a")
    out[name] = [pinned.uses_responses_api(), auto.uses_responses_api()]
print(json.dumps(out))
"""


def test_openhands_speaks_chat_completions_for_every_model_name():
    tree = ensure_agent_tree("openhands", lambda _m: None)
    run = subprocess.run(
        [str(tree / "bin" / "python3.13"), "-c", ASK, str(tree / "bin")],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    picked = json.loads(run.stdout.strip().splitlines()[-1])
    assert picked["gpt-4.1-mini"] == [False, True]  # left on auto it would send POST /v1/responses
    assert all(pinned is False for pinned, _auto in picked.values()), picked
