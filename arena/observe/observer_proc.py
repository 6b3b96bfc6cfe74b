"""The observer process: programs executed and files read in watched sandboxes.

Run as ``python -E -s -S arena/observe/observer_proc.py`` by ``procs.ProcessObserver``;
standard library only (``netlink.py`` and ``reads.py`` beside it), off the arena's GIL
and at a raised priority, so a busy event loop in the arena cannot make it late for a
10 ms program. It keeps the sandbox membership of every process itself: a process is
a member of a watch when it descends (fork events) from a registered root pid or, at
its exec, its ``/proc/PID/cgroup`` holds the watch's cgroup fragment. Only processes
running as the watch's uid are reported (the sandbox's own wrappers run as root), and
programs whose argv starts with one of the watch's ``skip`` prefixes are not reported
(a backend's wrapper shell), though their children are.

JSON lines on stdin: ``{"op": "watch", "key", "root_pid", "cgroup", "uid", "skip",
"workspace"}``, ``{"op": "unwatch", "key", "id"}``, ``{"op": "sync", "id"}``. On stdout:
``{"op": "ready", "procs": bool, "reads": bool, "notes": [...]}``, then ``{"op": "cmd",
"key", "pid", "argv", "exit_code", "duration_s", "nspid", "start"}`` when a program ends
(exit, or another exec of the same process: ``exit_code`` null), ``{"op": "read", "key",
"pid", "path"}``, ``{"op": "note", "text"}`` and ``{"op": "done", "id"}`` once every
event queued before the request has been handled. End of input ends the process.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time

if __package__:
    from arena.observe import netlink
    from arena.observe.reads import ReadWatcher
else:  # run as a script: the modules sit beside this file, on sys.path[0]
    import netlink  # type: ignore[no-redef]  # the same module, imported as a script
    from reads import ReadWatcher  # type: ignore[no-redef]  # the same class, as a script

GRAVE_S = 10.0  # how long an exited pid still counts as a member (closes at exit)
ARGV_CAP = 64 * 1024


def _read(path: str, cap: int = ARGV_CAP) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        return os.read(fd, cap)
    except OSError:
        return None
    finally:
        os.close(fd)


def _status(pid: int) -> tuple[int | None, int | None]:
    """(real uid, pid in its innermost pid namespace) of a live process."""
    raw = _read(f"/proc/{pid}/status", 8192)
    uid = nspid = None
    for line in (raw or b"").decode(errors="replace").splitlines():
        if line.startswith("Uid:"):
            uid = int(line.split()[1])
        elif line.startswith("NSpid:"):
            nspid = int(line.split()[-1])
    return uid, nspid


def _start(pid: int) -> int | None:
    raw = _read(f"/proc/{pid}/stat", 4096)
    try:
        return int(raw.rsplit(b")", 1)[1].split()[19]) if raw else None
    except (IndexError, ValueError):
        return None


class Observer:
    def __init__(self, out) -> None:
        self.out = out
        self.watches: dict[str, dict] = {}
        self.members: dict[int, str] = {}
        self.uids: dict[int, int | None] = {}
        self.grave: dict[int, tuple[str, float]] = {}
        self.records: dict[int, dict] = {}
        self.seen_reads: dict[str, set] = {}
        self.notes: list[str] = []
        self.sock = self.fan = None
        try:
            self.sock = netlink.open_socket()
        except OSError as exc:
            self.notes.append(
                f"process events connector unavailable ({exc}): programs run in sandboxes are not observed"
            )
        try:
            self.fan = ReadWatcher()
        except OSError as exc:
            self.notes.append(f"fanotify unavailable ({exc}): workspace reads are not observed")
        self.lost = False
        self.pending: dict[int, dict] = {}  # records whose /proc reads are being checked
        self.later: dict[int, int] = {}
        self.pos = 0

    def send(self, msg: dict) -> None:
        self.out.write(json.dumps(msg, separators=(",", ":")) + "\n")

    # -- membership ------------------------------------------------------------------
    def _by_cgroup(self, pid: int) -> str | None:
        frags = [(k, w["cgroup"]) for k, w in self.watches.items() if w.get("cgroup")]
        if not frags:
            return None
        raw = _read(f"/proc/{pid}/cgroup", 8192)
        if not raw:
            return None
        text = raw.decode(errors="replace")
        for key, frag in frags:
            if frag in text:
                return key
        return None

    def key_of(self, pid: int) -> str | None:
        key = self.members.get(pid)
        if key is None:
            g = self.grave.get(pid)
            key = g[0] if g else None
        return key

    # -- process events --------------------------------------------------------------
    def _recv(self) -> list[tuple]:
        events: list[tuple] = []
        while self.sock is not None:
            try:
                buf = self.sock.recv(1 << 16)
            except BlockingIOError:
                break
            except OSError as exc:  # ENOBUFS: the socket buffer overflowed
                if not self.lost:
                    self.lost = True
                    self.send({"op": "note", "text": f"process events lost ({exc})"})
                continue
            events.extend(netlink.parse(buf))
        return events

    def drain_procs(self) -> None:
        """Handle every queued event. An exec's argv is read from /proc only when no later
        exec of the same process is queued (else /proc shows the later program); an exec
        queued after the read is caught by re-reading the queue (the kernel queues the
        event before the new program runs), so a stale argv is never reported."""
        events = self._recv()
        while events:
            self.later = {}
            for i, e in enumerate(events):
                if e[0] == "exec":
                    self.later[e[3]] = i
            self.pos = 0
            for self.pos, e in enumerate(events):
                getattr(self, "_" + e[0])(*e[1:])
            events = self._recv()
            for pid, rec in list(self.pending.items()):  # read, then exec'd again?
                if any(e[0] == "exec" and e[3] == pid for e in events):
                    rec["argv"], rec["replaced_early"] = [], True
            self.pending.clear()

    def _uid(self, ts, pid, tgid, ruid) -> None:
        if pid == tgid and tgid in self.members:
            self.uids[tgid] = ruid

    def _fork(self, ts, ptgid, cpid, ctgid) -> None:
        if cpid != ctgid:
            return  # a thread
        key = self.members.get(ptgid)
        if key is not None:
            self.members[cpid] = key
            self.uids[cpid] = self.uids.get(ptgid)
            self.grave.pop(cpid, None)

    def _exec(self, ts, pid, tgid) -> None:
        key = self.members.get(tgid)
        if key is None:
            key = self._by_cgroup(tgid)
            if key is None:
                return
            self.members[tgid] = key
        self._close(tgid, ts, None)
        w = self.watches[key]
        known = tgid in self.uids
        uid = self.uids.get(tgid)
        if known and w.get("uid") is not None and uid != w["uid"]:
            return  # the backend's own set-up, before it drops to the sandbox user
        if self.later.get(tgid, self.pos) > self.pos:  # replaced before we could look
            self.records[tgid] = {
                "op": "cmd",
                "key": key,
                "pid": tgid,
                "argv": [],
                "t0": ts,
                "nspid": None,
                "start": None,
                "replaced_early": True,
            }
            return
        raw = _read(f"/proc/{tgid}/cmdline")
        argv = [os.fsdecode(a) for a in raw.split(b"\0")[:-1]] if raw else []
        if not argv:  # already a zombie (or gone): the kernel's name for it
            comm = _read(f"/proc/{tgid}/comm", 64)
            argv = [comm.decode(errors="replace").strip()] if comm else []
        puid, nspid = _status(tgid)
        if not known:  # first sighting (a cgroup match): its uid from /proc, then events
            uid = self.uids[tgid] = puid
            if w.get("uid") is not None and uid != w["uid"]:
                return
        if any(argv[: len(p)] == p for p in w.get("skip") or ()):
            return
        rec = self.records[tgid] = {
            "op": "cmd",
            "key": key,
            "pid": tgid,
            "argv": argv,
            "t0": ts,
            "nspid": nspid,
            "start": _start(tgid),
        }
        self.pending[tgid] = rec

    def _exit(self, ts, pid, tgid, code) -> None:
        if pid != tgid:
            return
        self._close(pid, ts, code)
        key = self.members.pop(pid, None)
        self.uids.pop(pid, None)
        if key is not None:
            self.grave[pid] = (key, time.monotonic() + GRAVE_S)

    def _close(self, pid: int, ts: int, code: int | None) -> None:
        rec = self.records.pop(pid, None)
        if rec is not None:
            rec["exit_code"] = code
            rec["duration_s"] = round(max(0, ts - rec.pop("t0")) / 1e9, 6)
            self.send(rec)

    # -- reads -----------------------------------------------------------------------
    def drain_reads(self) -> None:
        if self.fan is None:
            return
        self.drain_procs()  # forks queued before an open are known before its pid is looked up
        for key, pid, rel in self.fan.events():
            owner = self.key_of(pid)
            if owner is None:
                owner = self._by_cgroup(pid)
            if owner != key:
                continue
            uid = self.watches[key].get("uid")
            if uid is not None and self.uids.get(pid, uid) != uid:
                continue
            seen = self.seen_reads.setdefault(key, set())
            if (pid, rel) not in seen:
                seen.add((pid, rel))
                self.send({"op": "read", "key": key, "pid": pid, "path": rel})
        if self.fan.overflowed:
            self.fan.overflowed = False
            self.send({"op": "note", "text": "fanotify queue overflowed: reads lost"})

    # -- requests --------------------------------------------------------------------
    def request(self, msg: dict) -> None:
        op = msg.get("op")
        if op == "watch":
            key = str(msg["key"])
            self.watches[key] = {
                "cgroup": msg.get("cgroup"),
                "uid": msg.get("uid"),
                "skip": [list(p) for p in msg.get("skip") or ()],
            }
            if msg.get("root_pid"):
                self.members[int(msg["root_pid"])] = key
            if msg.get("workspace") and self.fan is not None:
                self.fan.watch(key, msg["workspace"])
            return
        self.drain_procs()
        self.drain_reads()
        if op == "unwatch":
            key = str(msg["key"])
            now = time.monotonic_ns()
            for pid in [p for p, r in self.records.items() if r["key"] == key]:
                self._close(pid, now, None)
            self.members = {p: k for p, k in self.members.items() if k != key}
            self.grave = {p: g for p, g in self.grave.items() if g[0] != key}
            self.watches.pop(key, None)
            self.seen_reads.pop(key, None)
            if self.fan is not None:
                self.fan.unwatch(key)
        if "id" in msg:
            self.send({"op": "done", "id": msg["id"]})

    def expire(self) -> None:
        now = time.monotonic()
        if self.grave and len(self.grave) > 256:
            self.grave = {p: g for p, g in self.grave.items() if g[1] > now}


def main() -> int:
    try:
        import ctypes  # noqa: PLC0415

        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the arena dies
    except Exception:  # noqa: BLE001
        pass
    try:  # woken first when an event arrives (event-driven: it never spins)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (OSError, AttributeError):
        try:
            os.nice(-10)
        except OSError:
            pass
    out = os.fdopen(1, "w", buffering=1 << 16)
    obs = Observer(out)
    obs.send({"op": "ready", "procs": obs.sock is not None, "reads": obs.fan is not None, "notes": obs.notes})
    out.flush()
    os.set_blocking(0, False)
    pending = b""
    fds = [0] + [x for x in (obs.sock, obs.fan) if x is not None]
    while True:
        ready, _, _ = select.select(fds, [], [], 1.0)
        if obs.sock in ready:
            obs.drain_procs()
        if obs.fan in ready:
            obs.drain_reads()
        if 0 in ready:
            try:
                chunk = os.read(0, 1 << 16)
            except BlockingIOError:
                chunk = None
            if chunk == b"":
                return 0
            pending += chunk or b""
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.strip():
                    obs.request(json.loads(line))
        obs.expire()
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
