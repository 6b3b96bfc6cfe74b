"""An in-memory task store: CRUD and search, optimistic concurrency (versions), tenants.

One re-entrant lock guards all state, so every operation is atomic across threads.
Tenants (phase 3) are a field of every task: a view filters the one shared table by it,
and the store's own methods are the view of tenant "default". The locked write path of
phase 2 is kept.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Tuple

STATUSES = frozenset({"todo", "doing", "done"})
MAX_TITLE = 200
_FIELDS = ("title", "description", "status", "tags")
DEFAULT_TENANT = "default"
_TENANT_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


class TaskStoreError(Exception):
    """Base class of the store's errors."""


class NotFound(TaskStoreError, KeyError):
    """No task with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class ValidationError(TaskStoreError, ValueError):
    """A field value or field name is not acceptable."""


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


def _matches(task: Task, terms: List[str]) -> bool:
    text = f"{task.title}\n{task.description}".lower()
    for term in terms:
        if term.startswith("tag:"):
            if term[4:] not in task.tags:
                return False
        elif term.lower() not in text:
            return False
    return True


def _tenant_name(name: object) -> str:
    if not isinstance(name, str) or not _TENANT_NAME.match(name):
        raise ValidationError(f"tenant name must be lowercase letters, digits and '-', got {name!r}")
    return name


# -- storage ------------------------------------------------------------------------------
class _Table:
    """The one table of tasks all tenants share, and its lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.tasks: Dict[int, Task] = {}
        self.next_id = 1


class TenantView:
    """The store as one tenant sees it: the shared table filtered by tenant."""

    def __init__(self, table: _Table, name: str) -> None:
        self._table = table
        self._lock = table.lock
        self.name = name

    @property
    def _tasks(self) -> Dict[int, Task]:
        return self._table.tasks

    def _current(self, task_id: int) -> Task:
        task = self._tasks.get(task_id) if isinstance(task_id, int) else None
        if task is None:  # ids are unique across tenants, so the id alone finds the task
            raise NotFound(f"no task {task_id!r}")
        return task

    def _mine(self) -> List[Task]:
        return sorted((t for t in self._tasks.values() if t.tenant == self.name), key=lambda t: t.id)

    def create(self, title: str, *, description: str = "", status: str = "todo",
               tags: Iterable[str] = ()) -> Task:
        fields = _validated({"title": title, "description": description, "status": status, "tags": tags})
        with self._lock:
            task = Task(id=self._table.next_id, tenant=self.name, **fields)
            self._tasks[task.id] = task
            self._table.next_id += 1
            return task

    def get(self, task_id: int) -> Task:
        with self._lock:
            return self._current(task_id)

    def update(self, task_id: int, *, expected_version: Optional[int] = None, **changes) -> Task:
        with self._lock:
            task = self._current(task_id)
            if expected_version is not None and expected_version != task.version:
                raise ConflictError(task_id, expected_version, task.version)
            fields = _validated(changes)
            new = replace(task, **fields)
            self._tasks[task_id] = new
            return new

    def delete(self, task_id: int, *, expected_version: Optional[int] = None) -> None:
        with self._lock:
            task = self._current(task_id)
            if expected_version is not None and expected_version != task.version:
                raise ConflictError(task_id, expected_version, task.version)
            del self._tasks[task_id]

    def list(self, *, status: Optional[str] = None, tag: Optional[str] = None) -> List[Task]:
        if status is not None:
            _status(status)
        wanted = tag
        with self._lock:
            tasks = self._mine()
        return [t for t in tasks if (status is None or t.status == status)
                and (wanted is None or wanted in t.tags)]

    def search(self, query: str) -> List[Task]:
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        terms = query.split()
        with self._lock:
            tasks = self._mine()
        return [t for t in tasks if _matches(t, terms)]


class TaskStore(TenantView):
    """The whole store; its own methods act on the tenant "default"."""

    def __init__(self) -> None:
        super().__init__(_Table(), DEFAULT_TENANT)

    def tenant(self, name: str) -> TenantView:
        return TenantView(self._table, _tenant_name(name))

    def tenants(self) -> List[str]:
        with self._lock:
            return sorted({t.tenant for t in self._tasks.values()})
