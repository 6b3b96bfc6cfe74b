"""The Gauntlet MCP server: the agent protocol's verbs as MCP tools, over stdio.

    gauntlet-agent mcp                 (or: gauntlet-agent --socket PATH mcp)

An agent that speaks MCP starts it inside its sandbox (Claude Code through
``--mcp-config``, Codex through ``mcp_servers.gauntlet``, any agent file with ``mcp:
true``). Tools ``status``, ``briefing``, ``submit``, ``feedback`` (``n`` optional) and
``message`` (``text``): each makes exactly the request the CLI makes
(``build_request``), over the attempt's socket, so the semantics, refusals and events are
the CLI's; ``submit`` adds ``via: "mcp"``, which the arena records on the submission's
``submission.received`` (and nowhere else). A tool's text is what the CLI prints (YAML);
a reply with ``ok: false`` (budget spent, cooldown, time up ...) is an MCP tool error
(``isError``) whose text is that same YAML, ``code`` and ``reason`` included; so is a
socket that cannot be reached.

``client.py`` loads this file from beside itself for ``gauntlet-agent mcp``, with the
official ``mcp`` SDK on ``sys.path`` (the tree the arena mounts read-only for such agents:
``GAUNTLET_MCP_LIB``), and passes in its own functions: nothing here imports the project.
"""

# No ``from __future__ import annotations``: the SDK reads the tools' annotations at
# registration.
from typing import Any, Callable

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

Request = Callable[[str, dict], dict]
BuildRequest = Callable[[str, list[str]], dict]
Render = Callable[[str, dict], str]

INSTRUCTIONS = (
    "Gauntlet: you are taking a timed engineering challenge. `briefing` gives the task, `submit` "
    "submits the current state of the workspace and returns its feedback (tests, hidden and "
    "adversarial counts, build, lint); submissions are limited: `status` shows the time and the "
    "submissions left. `feedback` shows a submission's feedback again."
)


def make_server(sock_path: str, *, request: Request, build_request: BuildRequest, render: Render) -> MCPServer:
    """The MCP server (``mcp.server.mcpserver.MCPServer``) for the attempt at ``sock_path``."""
    server = MCPServer("gauntlet", instructions=INSTRUCTIONS, log_level="WARNING")
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    changing = ToolAnnotations(read_only_hint=False, idempotent_hint=False, open_world_hint=False)

    def tool(annotations: ToolAnnotations) -> Callable[[Callable], Callable]:
        def register(fn: Callable) -> Callable:  # the docstring, on one line, describes the tool
            desc = " ".join((fn.__doc__ or "").split())
            server.add_tool(fn, description=desc, annotations=annotations, structured_output=False)
            return fn

        return register

    def result(text: str, ok: bool) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=not ok)

    async def call(verb: str, args: list[str], extra: dict[str, Any] | None = None) -> CallToolResult:
        try:
            req = {**build_request(verb, args), **(extra or {})}
        except ValueError as exc:  # the CLI's usage error (exit 2), word for word
            return result(str(exc), False)
        try:  # a blocking socket call, off the server's loop (a submit waits for its judge)
            reply = await anyio.to_thread.run_sync(request, sock_path, req)
        except (OSError, ConnectionError, ValueError) as exc:
            return result(f"cannot talk to the attempt at {sock_path}: {exc}", False)
        return result(render(verb, reply), bool(reply.get("ok")))  # ok: false is a tool error

    @tool(reading)
    async def status() -> CallToolResult:
        """Time left, submissions used and left, the current phase, and whether a submission is
        being judged."""
        return await call("status", [])

    @tool(reading)
    async def briefing() -> CallToolResult:
        """The challenge's briefing: the task of the current phase."""
        return await call("briefing", [])

    @tool(changing)
    async def submit() -> CallToolResult:
        """Submit the current state of the workspace for judging. Blocks until it is judged and
        returns the feedback document (tests: total, passed, failed, failures; hidden and
        adversarial counts; build; lint; notices). Submissions are limited (see status)."""
        return await call("submit", [], {"via": "mcp"})

    @tool(reading)
    async def feedback(n: int | None = None) -> CallToolResult:
        """The feedback document of submission n again (default: the latest)."""
        return await call("feedback", [] if n is None else [str(n)])

    @tool(changing)
    async def message(text: str) -> CallToolResult:
        """Send a short message to the operator; recorded with the attempt."""
        return await call("message", [text])

    return server


def serve(sock_path: str, *, request: Request, build_request: BuildRequest, render: Render) -> int:
    """Serve MCP over stdin/stdout until the client closes it."""
    make_server(sock_path, request=request, build_request=build_request, render=render).run("stdio")
    return 0
