"""An in-memory task store: CRUD and search (phase 1), optimistic concurrency with
versions (phase 2), multi-tenant isolation (phase 3).

Every tenant has its own tasks and its own id sequence. The ``TaskStore`` methods act on
the tenant named ``"default"``, so code written before tenancy keeps working; ``tenant(name)``
returns a view with the same methods for another tenant. One re-entrant lock guards all
state, so every operation is atomic across threads.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Tuple

STATUSES = frozenset({"todo", "doing", "done"})
MAX_TITLE = 200
DEFAULT_TENANT = "default"
_TENANT_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_FIELDS = ("title", "description", "status", "tags")


class TaskStoreError(Exception):
    """Base class of the store's errors."""


class NotFound(TaskStoreError, KeyError):
    """No task with that id (in this tenant)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class ValidationError(TaskStoreError, ValueError):
    """A field value, field name or tenant name is not acceptable."""


class ConflictError(TaskStoreError):
    """``expected_version`` did not match the task's current version."""

    def __init__(self, task_id: int, expected: int, actual: int) -> None:
        super().__init__(f"task {task_id}: expected version {expected}, current is {actual}")
        self.task_id = task_id
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True)
class Task:
    id: int
    title: str
    description: str = ""
    status: str = "todo"
    tags: Tuple[str, ...] = ()
    version: int = 1
    tenant: str = DEFAULT_TENANT


# -- validation ---------------------------------------------------------------------------
def _title(value: object) -> str:
    if not value or not value.strip():
        raise ValidationError("title must be a non-blank string")
    if len(value) > MAX_TITLE:
        raise ValidationError(f"title must be at most {MAX_TITLE} characters")
    return value


def _description(value: object) -> str:
    return value


def _status(value: object) -> str:
    if value not in STATUSES:
        raise ValidationError(f"status must be one of {', '.join(sorted(STATUSES))}, got {value!r}")
    return str(value)


def _tags(value: object) -> Tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValidationError("tags must be a collection of strings")
    out = set()
    for tag in list(value):
        if not isinstance(tag, str) or not tag.strip():
            raise ValidationError("each tag must be a non-blank string")
        out.add(tag.strip().lower())
    return tuple(sorted(out))


_VALIDATORS = {"title": _title, "description": _description, "status": _status, "tags": _tags}


def _validated(changes: dict) -> dict:
    unknown = sorted(set(changes) - set(_FIELDS))
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    return {name: _VALIDATORS[name](value) for name, value in changes.items()}


def _tenant_name(name: object) -> str:
    if not _TENANT_NAME.match(name):
        expected = "lowercase letters, digits and '-' (1-63 chars, not starting with '-')"
        raise ValidationError(f"tenant name must be {expected}, got {name!r}")
    return name


def _matches(task: Task, terms: List[str]) -> bool:
    text = f"{task.title}\n{task.description}".lower()
    for term in terms:
        if term.startswith("tag:"):
            if term[4:] not in task.tags:
                return False
        elif term.lower() not in text:
            return False
    return True


# -- storage ------------------------------------------------------------------------------
class _Space:
    """One tenant's tasks."""

    def __init__(self) -> None:
        self.tasks: Dict[int, Task] = {}
        self.next_id = 1


class TenantStore:
    """The store as one tenant sees it."""

    def __init__(self, store: "TaskStore", name: str) -> None:
        self._store = store
        self.name = name

    def _space(self) -> _Space:
        return self._store._space(self.name)

    def _current(self, task_id: int) -> Task:
        task = self._space().tasks.get(task_id) if isinstance(task_id, int) else None
        if task is None:
            raise NotFound(f"no task {task_id!r}")
        return task

    def create(self, title: str, *, description: str = "", status: str = "todo",
               tags: Iterable[str] = ()) -> Task:
        fields = _validated({"title": title, "description": description, "status": status, "tags": tags})
        with self._store._lock:
            space = self._space()
            task = Task(id=space.next_id, tenant=self.name, **fields)
            space.tasks[task.id] = task
            space.next_id += 1
            return task

    def get(self, task_id: int) -> Task:
        with self._store._lock:
            return self._current(task_id)

    def update(self, task_id: int, *, expected_version: Optional[int] = None, **changes) -> Task:
        with self._store._lock:
            task = self._current(task_id)
            if expected_version is not None and expected_version != task.version:
                raise ConflictError(task_id, expected_version, task.version)
            fields = _validated(changes)
            new = replace(task, **fields)
            self._space().tasks[task_id] = new
            return new

    def delete(self, task_id: int, *, expected_version: Optional[int] = None) -> None:
        with self._store._lock:
            task = self._current(task_id)
            if expected_version is not None and expected_version != task.version:
                raise ConflictError(task_id, expected_version, task.version)
            del self._space().tasks[task_id]

    def list(self, *, status: Optional[str] = None, tag: Optional[str] = None) -> List[Task]:
        if status is not None:
            _status(status)
        wanted = tag
        with self._store._lock:
            tasks = sorted(self._space().tasks.values(), key=lambda t: t.id)
        return [t for t in tasks if (status is None or t.status == status)
                and (wanted is None or wanted in t.tags)]

    def search(self, query: str) -> List[Task]:
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        terms = query.split()
        with self._store._lock:
            tasks = sorted(self._space().tasks.values(), key=lambda t: t.id)
        return [t for t in tasks if _matches(t, terms)]


class TaskStore(TenantStore):
    """The whole store. Its own methods act on the ``"default"`` tenant."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._spaces: Dict[str, _Space] = {}
        super().__init__(self, DEFAULT_TENANT)

    def _space(self, name: str = DEFAULT_TENANT) -> _Space:  # type: ignore[override]
        with self._lock:
            space = self._spaces.get(name)
            if space is None:
                space = self._spaces[name] = _Space()
            return space

    def tenant(self, name: str) -> TenantStore:
        """A view of the store for tenant ``name`` (same methods, isolated data)."""
        return TenantStore(self, _tenant_name(name))

    def tenants(self) -> List[str]:
        """Names of the tenants that hold at least one task, sorted."""
        with self._lock:
            return sorted(self._spaces)
