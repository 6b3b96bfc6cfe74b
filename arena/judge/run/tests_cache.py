"""Content-addressed judge-side directories, bound read-only at ``/judge`` in a sandbox.

``judge_dir(test_dirs, cache_root) -> (path, tests_args)``: ``<cache_root>/<hash>/``
holding ``config/`` (the trusted bootstrap, plugins, the isolation worker and pytest.ini,
the modules with hash-checked bytecode in ``config/__pycache__``) and
``tests/<phase>/<suite>/`` (copies of the judge-side tests in play, links kept as links,
``__pycache__``/``.pytest_cache`` left out). The hash is sha256 over every entry's path,
kind and content, so the directory is the same for every run of one challenge + phases
(a stable mount source, hence a stable key for a pool of pre-started sandboxes) and a
changed test file gives a new directory, never a stale one. The bytes hashed are the
bytes written. Built in a temporary directory and renamed into place; files 0644,
directories 0755, owned by the arena's user: a sandbox only ever sees it read-only.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import secrets
import shutil
import sys
from pathlib import Path

from arena.judge.run import command as cmd
from arena.judge.in_sandbox import trusted
from arena.judge.in_sandbox.launcher import LAUNCHER
from arena.judge.in_sandbox.proxies import PLUGIN as ISOLATION_PLUGIN
from arena.judge.in_sandbox import verifier_guard
from arena.judge.in_sandbox.wire import WIRE
from arena.judge.in_sandbox.worker import WORKER

SUITE_ORDER = {"static": 0, "hidden": 1, "adversarial": 2}
_SKIP = {"__pycache__", ".pytest_cache"}


_MODULES = {  # imported in the sandbox: shipped with their bytecode too
    "gauntlet_judge_plugin": trusted.PLUGIN,
    "gauntlet_judge_launcher": LAUNCHER,
    "gauntlet_wire": WIRE,
    "gauntlet_worker": WIRE + "\n" + WORKER,  # the isolation worker, run whole (wire.py BOOT)
    "gauntlet_isolation": ISOLATION_PLUGIN,
}


@functools.lru_cache(maxsize=1)
def _config_entries() -> tuple[tuple, ...]:
    """The trusted config files, and for the modules among them hash-checked bytecode
    (``__pycache__/<name>.<tag>.pyc``): compiling the isolation plugin and the worker
    took the sandbox more CPU than anything else the isolation does. An interpreter of
    another version looks for another tag and compiles the source, as before."""
    out: list[tuple] = [
        ("config", "dir", b""),
        ("config/run.py", "file", trusted.RUNNER.encode()),
        ("config/pytest.ini", "file", trusted.PYTEST_INI.encode()),
    ]
    # the guard of a verifier run as written (an imported task's test.sh; verifier_guard.py)
    for rel, text in verifier_guard.files():
        out.append((f"config/{rel}", "file", text.encode()))
    tag = sys.implementation.cache_tag
    if tag:
        out.append(("config/__pycache__", "dir", b""))
    for name, src in _MODULES.items():
        data = src.encode()
        out.append((f"config/{name}.py", "file", data))
        if tag:
            code = compile(data, f"{cmd.CONFIG_DIR}/{name}.py", "exec", dont_inherit=True)
            pyc = importlib._bootstrap_external._code_to_hash_pyc(code, importlib.util.source_hash(data), True)  # type: ignore[attr-defined]
            out.append((f"config/__pycache__/{name}.{tag}.pyc", "file", bytes(pyc)))
    return tuple(out)


def _entries(test_dirs: dict[int, dict[str, list[Path]]]) -> tuple[list[tuple], list[str]]:
    """[(relpath, kind, data)] (kind dir/file/link) and the in-sandbox test dirs."""
    out: list[tuple] = list(_config_entries())
    tests_args: list[str] = []
    for phase, suites in sorted(test_dirs.items()):
        for suite, roots in sorted(suites.items(), key=lambda kv: SUITE_ORDER.get(kv[0], 9)):
            dest = f"tests/{phase}/{suite}"
            found: list[tuple] = []
            for root in roots:
                root = Path(root)
                if not root.exists():
                    raise FileNotFoundError(f"judge-side tests {root}: not found")
                if root.is_file():
                    found.append((f"{dest}/{root.name}", "file", root.read_bytes()))
                    continue
                found.append((dest, "dir", b""))
                for d, dirs, files in os.walk(root):  # does not follow links to dirs
                    dirs[:] = sorted(x for x in dirs if x not in _SKIP)
                    rel = Path(d).relative_to(root)
                    for name in dirs + sorted(files):
                        p = Path(d) / name
                        r = f"{dest}/{(rel / name).as_posix()}"
                        if p.is_symlink():
                            found.append((r, "link", os.readlink(p).encode()))
                        elif name in dirs:
                            found.append((r, "dir", b""))
                        elif p.is_file():
                            found.append((r, "file", p.read_bytes()))
            if found:
                out.append((f"tests/{phase}", "dir", b""))
                out.append((dest, "dir", b""))
                out.extend(found)
                tests_args.append(f"{cmd.TESTS_ROOT}/{phase}/{suite}")
    return out, tests_args


def _digest(entries: list[tuple]) -> str:
    h = hashlib.sha256()
    for rel, kind, data in sorted(set(entries)):
        h.update(f"{rel}\0{kind}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def digest(test_dirs: dict[int, dict[str, list[Path]]]) -> str:
    """The name ``judge_dir`` gives these tests (without building anything)."""
    return _digest(_entries(test_dirs)[0])[:24]


def judge_dir(test_dirs: dict[int, dict[str, list[Path]]], cache_root: Path) -> tuple[Path, list[str]]:
    entries, tests_args = _entries(test_dirs)
    final = Path(cache_root) / _digest(entries)[:24]
    if final.is_dir():
        return final, tests_args
    Path(cache_root).mkdir(parents=True, exist_ok=True)
    os.chmod(cache_root, 0o755)
    tmp = Path(cache_root) / f".build-{secrets.token_hex(6)}"
    try:
        tmp.mkdir(mode=0o755)
        os.chmod(tmp, 0o755)
        for rel, kind, data in sorted(set(entries)):
            p = tmp / rel
            if kind == "dir":
                p.mkdir(parents=True, exist_ok=True)
                os.chmod(p, 0o755)
            elif kind == "link":
                p.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(data.decode(), p)
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
                os.chmod(p, 0o644)
        for d, dirs, _files in os.walk(tmp):  # whatever the umask made of parents
            for x in dirs:
                if not os.path.islink(os.path.join(d, x)):
                    os.chmod(os.path.join(d, x), 0o755)
        try:
            tmp.rename(final)
        except OSError:  # built meanwhile by another run: same content
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final, tests_args
