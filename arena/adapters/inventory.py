"""What ``gauntlet agents`` shows: every built-in adapter with its PyPI package, pinned
version, the provider APIs it speaks, whether it registers the MCP server, and the state
of its tree (the local backend's) and its image (Docker's) for the current recipe, with
the command that builds both. No Textual, no network: the Docker engine is asked for
images by the recipe's label only when a client is given."""

from __future__ import annotations

from typing import Protocol, TypedDict

from arena.adapters.registry import get_adapter, names
from arena.adapters.build import AGENT_LABEL, image_label, image_ref, tree_path


class Images(Protocol):  # the part of docker.DockerClient.images used here
    def list(self, *, filters: dict[str, str]) -> list[object]: ...


class Tree(TypedDict):
    path: str
    state: str  # built | missing


class Image(TypedDict):
    ref: str
    state: str  # present | missing | unknown (no engine)
    detail: str


class Row(TypedDict):
    name: str
    package: str
    version: str
    api: str
    mcp: bool
    tree: Tree
    image: Image
    build: str


def agent_rows(images: Images | None, docker_detail: str = "") -> list[Row]:
    """One row per adapter. ``images``: the engine's image collection, or None when the
    engine does not answer (``docker_detail`` says why)."""
    rows: list[Row] = []
    for name in names():
        ad = get_adapter(name)
        tree = tree_path(name)
        image: Image
        if images is None:
            image = {"ref": image_ref(name), "state": "unknown", "detail": docker_detail or "Docker does not answer"}
        else:
            found = images.list(filters={"label": f"{AGENT_LABEL}={image_label(name)}"})
            image = {"ref": image_ref(name), "state": "present" if found else "missing", "detail": ""}
        rows.append(
            {
                "name": name,
                "package": ad.package,
                "version": ad.version,
                "api": ad.api,
                "mcp": ad.mcp,
                "tree": {"path": str(tree), "state": "built" if (tree / ".complete").exists() else "missing"},
                "image": image,
                "build": f"gauntlet sandbox build --agent {name}",
            }
        )
    return rows
