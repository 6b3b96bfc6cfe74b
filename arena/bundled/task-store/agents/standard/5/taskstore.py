"""An in-memory task store: CRUD and search, with optimistic concurrency (versions)."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Tuple

STATUSES = ("todo", "doing", "done")
MAX_TITLE = 200
_FIELDS = ("title", "description", "status", "tags")


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


@dataclass
class Task:
    id: int
    title: str
    description: str = ""
    status: str = "todo"
    tags: Tuple[str, ...] = ()
    version: int = 1
    tenant: str = "default"


# -- validation ---------------------------------------------------------------------------
def _title(value: object) -> str:
    if not value or not value.strip():
        raise ValidationError("title must be a non-blank string")
    if len(value) > MAX_TITLE:
        raise ValidationError(f"title must be at most {MAX_TITLE} characters")
    return value


def _description(value: object) -> str:
    return value or ""


def _status(value: object) -> str:
    if value not in STATUSES:
        raise ValidationError(f"status must be one of {', '.join(STATUSES)}, got {value!r}")
    return str(value)


def _tags(value: object) -> Tuple[str, ...]:
    return tuple(sorted({tag.strip().lower() for tag in value or ()}))


_VALIDATORS = {"title": _title, "description": _description, "status": _status, "tags": _tags}


def _validated(changes: dict) -> dict:
    unknown = sorted(set(changes) - set(_FIELDS))
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    return {name: _VALIDATORS[name](value) for name, value in changes.items()}


def _matches(task: Task, terms: List[str]) -> bool:
    text = " ".join([task.title, task.description, *task.tags]).lower()
    for term in terms:
        if term.startswith("tag:"):
            if term[4:] not in task.tags:
                return False
        elif term.lower() not in text:
            return False
    return True


# -- storage ------------------------------------------------------------------------------
class TenantView:
    """One tenant's slice of the shared store."""

    def __init__(self, store: "TaskStore", name: str) -> None:
        self._store = store
        self.name = name

    def _own(self, task_id: int) -> Task:
        task = self._store.get(task_id)
        if task.tenant != self.name:
            raise NotFound(f"no task {task_id!r}")
        return task

    def create(self, title: str, **fields) -> Task:
        task = self._store.create(title, **fields)
        task.tenant = self.name
        return task

    def get(self, task_id: int) -> Task:
        return self._own(task_id)

    def update(self, task_id: int, **changes) -> Task:
        self._own(task_id)
        return self._store.update(task_id, **changes)

    def delete(self, task_id: int, **kw) -> None:
        self._own(task_id)
        self._store.delete(task_id, **kw)

    def list(self, **filters) -> List[Task]:
        return [t for t in self._store.list(**filters) if t.tenant == self.name]

    def search(self, query: str) -> List[Task]:
        return [t for t in self._store.search(query) if t.tenant == self.name]


class TaskStore:
    def __init__(self) -> None:
        self._tasks: Dict[int, Task] = {}
        self._next_id = 1

    def tenant(self, name: str) -> TenantView:
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
            raise ValidationError(f"bad tenant name {name!r}")
        return TenantView(self, name)

    def tenants(self) -> List[str]:
        return sorted({t.tenant for t in self._tasks.values()})

    def _current(self, task_id: int) -> Task:
        task = self._tasks.get(task_id) if isinstance(task_id, int) else None
        if task is None:
            raise NotFound(f"no task {task_id!r}")
        return task

    def create(self, title: str, *, description: str = "", status: str = "todo",
               tags: Iterable[str] = ()) -> Task:
        fields = _validated({"title": title, "description": description, "status": status, "tags": tags})
        task = Task(id=self._next_id, **fields)
        self._tasks[task.id] = task
        self._next_id += 1
        return task

    def get(self, task_id: int) -> Task:
        return self._current(task_id)

    def update(self, task_id: int, *, expected_version: Optional[int] = None, **changes) -> Task:
        task = self._current(task_id)
        if expected_version is not None and expected_version != task.version:
            raise ConflictError(task_id, expected_version, task.version)
        for name, value in changes.items():
            setattr(task, name, _validated({name: value})[name])
        task.version += 1
        return task

    def delete(self, task_id: int, *, expected_version: Optional[int] = None) -> None:
        task = self._current(task_id)
        if expected_version is not None and expected_version != task.version:
            raise ConflictError(task_id, expected_version, task.version)
        del self._tasks[task_id]

    def list(self, *, status: Optional[str] = None, tag: Optional[str] = None) -> List[Task]:
        if status is not None:
            _status(status)
        wanted = tag
        tasks = sorted(self._tasks.values(), key=lambda t: t.id)
        return [t for t in tasks if (status is None or t.status == status)
                and (wanted is None or wanted in t.tags)]

    def search(self, query: str) -> List[Task]:
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        terms = query.split()
        tasks = sorted(self._tasks.values(), key=lambda t: t.id)
        return [t for t in tasks if _matches(t, terms)]
