"""An in-memory task store."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

STATUSES = ("todo", "doing", "done")
MAX_TITLE = 200


class TaskStoreError(Exception):
    """Base class of the store's errors."""


class NotFound(TaskStoreError, KeyError):
    """No task with that id."""


class ValidationError(TaskStoreError, ValueError):
    """A field value or field name is not acceptable."""


class ConflictError(TaskStoreError):
    pass


@dataclass
class Task:
    id: int
    title: str
    description: str = ""
    status: str = "todo"
    tags: Tuple[str, ...] = field(default_factory=tuple)
    version: int = 1
    tenant: str = "default"


class TenantView:
    def __init__(self, store, name):
        self.store = store
        self.name = name

    def create(self, title, **kw):
        task = self.store.create(title, **kw)
        task.tenant = self.name
        return task

    def get(self, task_id):
        return self.store.get(task_id)

    def update(self, task_id, **kw):
        return self.store.update(task_id, **kw)

    def delete(self, task_id, **kw):
        return self.store.delete(task_id, **kw)

    def list(self, **kw):
        return [t for t in self.store.list(**kw) if t.tenant == self.name]

    def search(self, query):
        return self.store.search(query)


class TaskStore:
    def __init__(self) -> None:
        self.tasks: Dict[int, Task] = {}  # public now: the tenant views read it
        self._next_id = 1

    def tenant(self, name):
        return TenantView(self, name)

    def tenants(self):
        names = {t.tenant for t in self._tasks.values()}
        return sorted(names)

    def create(self, title: str, *, description: str = "", status: str = "todo",
               tags: Iterable[str] = ()) -> Task:
        if not title.strip():
            raise ValidationError("title is required")
        task = Task(self._next_id, title, description, status, tuple(tags))
        self.tasks[task.id] = task
        self._next_id += 1
        return task

    def get(self, task_id: int) -> Task:
        if task_id not in self._tasks:
            raise NotFound(task_id)
        return self._tasks[task_id]

    def update(self, task_id: int, expected_version=None, **changes) -> Task:
        task = self.get(task_id)
        if expected_version and expected_version != task.version:
            raise ConflictError("version mismatch")
        for name, value in changes.items():
            setattr(task, name, value)
        task.version += 1
        return task

    def delete(self, task_id: int, expected_version=None) -> None:
        if expected_version and expected_version != self.get(task_id).version:
            raise ConflictError("version mismatch")
        del self._tasks[task_id]

    def list(self, *, status: Optional[str] = None, tag: Optional[str] = None) -> List[Task]:
        tasks = list(self.tasks.values())
        if status:
            tasks = [t for t in tasks if t.status == status]
        if tag:
            tasks = [t for t in tasks if tag in t.tags]
        return tasks

    def search(self, query: str) -> List[Task]:
        return [t for t in self._tasks.values() if query.lower() in t.title.lower()]
