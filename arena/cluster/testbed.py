"""A Ray cluster of this machine's Docker engine: a head and N worker nodes, each its own
host (container, hostname, address) on a private bridge network, all from the
``gauntlet-node`` image. For the integration test, the benchmark and the docs' recipe.

    with DockerCluster(workers=2, slots=2) as c:
        c.address            # "ray://172.x.y.2:10001": give it to --cluster
        c.kill("w1")         # a node lost mid-attempt

The nodes are containers with SYS_ADMIN and NET_ADMIN (bubblewrap's namespaces for the
local sandbox backend); the head gets no ``gauntlet_slot`` unless ``head_slots`` says so.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import time

from arena.cluster.image import NODE_IMAGE

# Notice a dead node in ~3 s instead of Ray's default ~30 s (head-side settings).
FAST_HEALTH = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_initial_delay_ms": "1000",
}


# Enough for bubblewrap's namespaces (the local sandbox backend) inside a node container;
# --privileged is refused on hosts that are containers themselves. cgroups stay read-only
# there, so a node's sandboxes get rlimits, not cgroup limits (docs/cluster.md).
NODE_PRIVILEGES = (
    "--cap-add",
    "SYS_ADMIN",
    "--cap-add",
    "NET_ADMIN",
    "--security-opt",
    "seccomp=unconfined",
    "--security-opt",
    "apparmor=unconfined",
)


def _docker(*args: str, check: bool = True, timeout: float = 120) -> str:
    p = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])}: {p.stderr.strip()[-500:]}")
    return p.stdout.strip()


def _logs(container: str) -> str:
    p = subprocess.run(["docker", "logs", "--tail", "15", container], capture_output=True, text=True, timeout=60)
    return (p.stdout + p.stderr).strip()


class DockerCluster:
    def __init__(
        self, workers: int = 2, slots: int = 2, head_slots: int = 0, image: str = NODE_IMAGE, cpus_per_node: int = 2
    ) -> None:
        self.tag = "gc" + secrets.token_hex(3)
        self.network = f"{self.tag}-net"
        self.workers = [f"w{i + 1}" for i in range(workers)]
        self.slots, self.head_slots, self.image, self.cpus = slots, head_slots, image, cpus_per_node
        self.ips: dict[str, str] = {}

    def name(self, node: str) -> str:
        return f"{self.tag}-{node}"

    @property
    def address(self) -> str:
        return f"ray://{self.ips['head']}:10001"

    def _run_node(self, node: str, ray_args: list[str], env: dict[str, str]) -> None:
        envs = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
        _docker(
            "run",
            "-d",
            *NODE_PRIVILEGES,
            "--network",
            self.network,
            "--name",
            self.name(node),
            "--hostname",
            node,
            "--label",
            f"gauntlet.cluster={self.tag}",
            # not gauntlet=1 (inherited from gauntlet-base): that is a sandbox, and a
            # stale-sandbox sweep of any other gauntlet process would remove the node
            "--label",
            "gauntlet=node",
            "--shm-size",
            "256m",
            *envs,
            self.image,
            "ray",
            "start",
            "--block",
            "--disable-usage-stats",
            "--num-cpus",
            str(self.cpus),
            "--object-store-memory",
            str(150 * 2**20),
            *ray_args,
        )
        self.ips[node] = self._ip(node)

    def _ip(self, node: str) -> str:
        return _docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", self.name(node))

    def start(self, timeout: float = 300) -> "DockerCluster":
        _docker("network", "create", "--label", f"gauntlet.cluster={self.tag}", self.network)
        self._run_node(
            "head",
            [
                "--head",
                "--port",
                "6379",
                "--ray-client-server-port",
                "10001",
                "--include-dashboard",
                "false",
                "--resources",
                json.dumps({"gauntlet_slot": self.head_slots} if self.head_slots else {}),
            ],
            FAST_HEALTH,
        )
        # workers give up soon on a head not yet up (a loaded machine takes 30 s and more)
        self.wait_for(1, timeout)
        for w in self.workers:
            self.start_worker(w)
        self.wait_for(1 + len(self.workers), timeout, revive=True)
        return self

    def start_worker(self, node: str) -> None:
        self._run_node(
            node,
            ["--address", f"{self.ips['head']}:6379", "--resources", json.dumps({"gauntlet_slot": self.slots})],
            {},
        )

    def alive_nodes(self) -> int:
        code = (
            "import ray,sys; ray.init(address='auto', logging_level='ERROR'); "
            "print(sum(1 for n in ray.nodes() if n['Alive']))"
        )
        out = _docker("exec", self.name("head"), "python3", "-c", code, check=False, timeout=60)
        try:
            return int(out.splitlines()[-1])
        except (ValueError, IndexError):
            return 0

    def wait_for(self, n: int, timeout: float, revive: bool = False) -> None:
        """Until ``n`` nodes are alive. ``revive``: start again a worker whose ``ray start``
        gave up (Ray waits a fixed 30 s for its raylet, too short on a loaded machine)."""
        deadline = time.monotonic() + timeout
        revived = dict.fromkeys(self.workers, 0)
        while time.monotonic() < deadline:
            if self.alive_nodes() >= n:
                return
            for w in self.workers if revive else ():
                state = _docker("inspect", "-f", "{{.State.Status}}", self.name(w), check=False)
                if state == "exited" and revived[w] < 3:
                    revived[w] += 1
                    _docker("start", self.name(w), check=False)
                    self.ips[w] = self._ip(w)
            time.sleep(1.0)  # waiting on real processes starting, with a deadline
        logs = "\n".join(
            f"--- {n}: "
            + _docker("ps", "-a", "--filter", f"name={self.name(n)}", "--format", "{{.Status}}", check=False)
            + "\n"
            + _logs(self.name(n))
            for n in ["head", *self.workers]
        )
        raise RuntimeError(f"the cluster did not reach {n} nodes in {timeout:.0f}s:\n{logs}")

    def kill(self, node: str) -> None:
        """The node is lost: its container (raylet, workers, sandboxes) is killed."""
        _docker("kill", self.name(node))

    def stop(self) -> None:
        for node in ["head", *self.workers]:
            _docker("rm", "-f", self.name(node), check=False)
        _docker("network", "rm", self.network, check=False)

    def __enter__(self) -> "DockerCluster":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
