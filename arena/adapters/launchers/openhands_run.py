"""OpenHands' own agent loop (openhands-sdk ``Agent`` + ``Conversation``, the loop the
OpenHands CLI runs), headless: one task, the terminal and file-editor tools, the model
behind the gateway (LiteLLM, Chat Completions for every model name: ``api_mode="chat"``;
left on "auto" it picks the Responses API for names LiteLLM lists with /v1/responses, such
as gpt-4.1-mini), and the Gauntlet MCP server's tools. Its events are printed as JSON lines
on stdout (the agent's own event stream); the last one is ``{"kind": "finished", "status":
finished|stuck|error|..., "detail": its last error}``, which the arena records on
``agent.exited`` (arena/agents/endreason.py). Usage: openhands_run.py TASK_FILE WORKSPACE MODEL"""

import json
import os
import shutil
import sys

os.environ.pop("PYTHONHOME", None)  # the agent's commands run the sandbox's own python
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "lib"))


def gauntlet_mcp():
    """The Gauntlet MCP server (`gauntlet-agent mcp`, stdio, the SDK from the mounted MCP
    tree) as OpenHands' MCP server "gauntlet", when the arena mounted that tree."""
    lib = os.environ.get("GAUNTLET_MCP_LIB") or "/opt/gauntlet/agents/mcp/lib"
    sock = os.environ.get("GAUNTLET_SOCKET")
    if not sock or not os.path.isdir(lib):
        return {}
    tool = shutil.which("gauntlet-agent") or "/gauntlet/bin/gauntlet-agent"
    env = {"GAUNTLET_MCP_LIB": lib, "GAUNTLET_SOCKET": sock, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return {"gauntlet": {"transport": "stdio", "command": tool, "args": ["--socket", sock, "mcp"], "env": env}}


def make_llm(model, base_url, key):
    """The agent's LLM: the gateway's URL and the attempt's token, Chat Completions."""
    from pydantic import SecretStr

    from openhands.sdk import LLM

    return LLM(
        model=f"openai/{model}",
        api_mode="chat",  # Chat Completions whatever the model's name (docs/gateway.md)
        base_url=base_url,
        api_key=SecretStr(key),
        usage_id="agent",
        stream=True,
        native_tool_calling=True,
        caching_prompt=False,
        num_retries=2,
    )


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: gauntlet-openhands TASK_FILE WORKSPACE MODEL")
    task_file, workspace, model = argv
    base_url, key = os.environ.get("OPENAI_BASE_URL"), os.environ.get("OPENAI_API_KEY")
    if not base_url or not key:
        sys.exit("gauntlet-openhands: OPENAI_BASE_URL and OPENAI_API_KEY must be set (the gateway's)")
    with open(task_file, encoding="utf-8") as f:
        task = f.read()
    from openhands.sdk import Agent, Conversation, Tool
    from openhands.tools.file_editor import FileEditorTool
    from openhands.tools.terminal import TerminalTool

    llm = make_llm(model, base_url, key)
    tools = [Tool(name=TerminalTool.name, params={"terminal_type": "subprocess"}), Tool(name=FileEditorTool.name)]
    agent = Agent(llm=llm, tools=tools, mcp_config=gauntlet_mcp())

    errors = []  # its ConversationErrorEvents: why it stopped, when it did not finish

    def on_event(event):
        line = {"kind": type(event).__name__, "source": getattr(event, "source", None)}
        action = getattr(event, "action", None)
        if action is not None:
            line["tool"] = getattr(event, "tool_name", None)
            line["action"] = action.model_dump(mode="json", exclude_none=True)
        if line["kind"] == "ConversationErrorEvent":
            line["code"], line["detail"] = getattr(event, "code", None), getattr(event, "detail", None)
            errors.append(f"{line['code']}: {line['detail']}")
        print(json.dumps(line, default=str), flush=True)

    conv = Conversation(
        agent=agent,
        workspace=workspace,
        persistence_dir=None,
        callbacks=[on_event],
        token_callbacks=[lambda _chunk: None],
        visualizer=None,
        max_iteration_per_run=int(os.environ.get("GAUNTLET_OPENHANDS_MAX_STEPS", "100")),
    )
    conv.send_message(task)
    try:
        conv.run()
    except Exception as exc:  # ConversationRunError etc.: said on the last line, then exit 1
        end = {"kind": "finished", "status": "error", "detail": f"{type(exc).__name__}: {exc}"[:500]}
        print(json.dumps(end), flush=True)
        conv.close()
        sys.exit(1)
    status = conv.state.execution_status
    status = str(getattr(status, "value", status))
    end = {"kind": "finished", "status": status}
    if status != "finished" and errors:
        end["detail"] = errors[-1][:500]
    elif status == "stuck":
        end["detail"] = "its stuck detector saw the same actions, observations or errors repeat"
    print(json.dumps(end), flush=True)
    conv.close()


if __name__ == "__main__":
    main(sys.argv[1:])
