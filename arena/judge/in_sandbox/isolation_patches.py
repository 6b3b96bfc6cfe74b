"""The isolation plugin's last part: a test's patches carried into the submission's process.

Part of ``gauntlet_isolation.py`` (after ``PROXIES`` of proxies.py). A ``mock.patch`` or
``monkeypatch.setattr`` of the submission's own module (``mock.patch("netwrap.helper")``,
``monkeypatch.setattr(netwrap, "helper", ...)``) already lands there: ``RemoteModule``
and ``Remote`` forward attribute writes and deletes. A patch of a module (or a class of a
module) that the submission's process has too — ``socket.socket``, ``builtins.open``,
``time.time``, ``os.path.exists`` — is applied here as the test asked and **mirrored**:
the same attribute set in the worker to the test's object (a mock crosses as a handle, so
the calls the submission makes are recorded by the test's mock, and what it returns comes
back), undone when the test undoes it. Mirrors are carried lazily: with the next request
to the worker, and again into a fresh worker while the patch is active. A patch the
worker cannot apply (a module it cannot import) is reported as an isolation notice.
"""

from __future__ import annotations

PATCHES = r'''

_ACTIVE_MIRRORS = {}  # key -> (module, attribute path, name, value, delete), in the order applied
_NOT_MIRRORED = ("gauntlet_", "pytest", "_pytest", "pluggy", "coverage")


def _mirror_target(target):
    """(module name, attribute path) of a trusted-side module or class that the
    submission's process has too (not a test module, not the judge's), else None."""
    if isinstance(target, (Remote, RemoteModule, Lazy, BoundCall)):
        return None  # the submission's own: already forwarded
    if isinstance(target, types.ModuleType):
        name, path = target.__name__, []
    elif isinstance(target, type):
        name, qual = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
        if type(name) is not str or type(qual) is not str or "<" in qual:
            return None
        path = qual.split(".")
    else:
        return None
    if type(name) is not str:
        return None
    mod = sys.modules.get(name)
    top = name.split(".")[0]
    if mod is None or top.startswith(_NOT_MIRRORED) or top in NAMES:
        return None
    f = getattr(mod, "__file__", None)
    if type(f) is str and f.startswith(("/judge/", HERE)):
        return None  # a test module (or the judge's own): the submission cannot import it
    v = mod
    for part in path:
        v = v.__dict__.get(part) if isinstance(v, (type, types.ModuleType)) else None
    return (name, path) if v is target else None


def _mirror(owner, target, attr, delete):
    got = _mirror_target(target)
    if got is None:
        return
    value = None if delete else getattr(target, attr, None)
    key = object()
    _ACTIVE_MIRRORS[key] = (got[0], got[1], attr, value, delete)
    owner.__dict__.setdefault("_gauntlet_mirrors", []).append(key)


def _unmirror(owner):
    for key in owner.__dict__.pop("_gauntlet_mirrors", ()):
        _ACTIVE_MIRRORS.pop(key, None)


def _sync_mirrors(w):
    """Before a request: undo in the worker what the test undid (last first), apply what it
    patched since (first first)."""
    stale = [k for k in w.mirrors if k not in _ACTIVE_MIRRORS]
    for k in reversed(stale):
        tok = w.mirrors.pop(k)
        if tok is not None:
            try:
                w.peer.request(["unmirror", tok])
            except WireError:
                raise
            except Exception:
                pass
    for k, (mod, path, attr, value, delete) in list(_ACTIVE_MIRRORS.items()):
        if k in w.mirrors:
            continue
        w.mirrors[k] = None
        try:
            w.mirrors[k] = w.peer.request(["mirror", mod, w.peer.enc(list(path)), attr, w.peer.enc(value), delete])
        except WireError:
            raise
        except Exception as e:
            where = ".".join([mod, *path, attr])
            notice("patch-target", f"the test's patch of {where} could not be carried into the submission's "
                   f"process ({type(e).__name__}: {str(e)[:120]})")


def _instrument_patches():
    try:
        import unittest.mock as um
    except Exception:
        um = None
    if um is not None and not getattr(um._patch, "_gauntlet", False):
        enter, exit_ = um._patch.__enter__, um._patch.__exit__

        def __enter__(self):
            got = enter(self)
            try:
                _mirror(self, self.target, self.attribute, False)
            except Exception:
                pass
            return got

        def __exit__(self, *exc_info):
            _unmirror(self)
            return exit_(self, *exc_info)

        um._patch.__enter__, um._patch.__exit__, um._patch._gauntlet = __enter__, __exit__, True
    try:
        from _pytest.monkeypatch import MonkeyPatch
    except Exception:
        return
    if getattr(MonkeyPatch, "_gauntlet", False):
        return
    m_set, m_del, m_undo = MonkeyPatch.setattr, MonkeyPatch.delattr, MonkeyPatch.undo

    def _after(self, n, delete):
        if len(self._setattr) > n:
            obj, attr = self._setattr[-1][:2]
            try:
                _mirror(self, obj, attr, delete)
            except Exception:
                pass

    def setattr_(self, *args, **kwargs):
        n = len(self._setattr)
        got = m_set(self, *args, **kwargs)
        _after(self, n, False)
        return got

    def delattr_(self, *args, **kwargs):
        n = len(self._setattr)
        got = m_del(self, *args, **kwargs)
        _after(self, n, True)
        return got

    def undo(self):
        _unmirror(self)
        return m_undo(self)

    for name, f in (("setattr", setattr_), ("delattr", delattr_), ("undo", undo)):
        f.__name__, f.__qualname__, f.__doc__ = name, f"MonkeyPatch.{name}", getattr(MonkeyPatch, name).__doc__
        setattr(MonkeyPatch, name, f)
    MonkeyPatch._gauntlet = True
'''
