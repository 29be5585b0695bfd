"""A throw-away 3-master Redis Cluster on loopback ports, for the store tests.

    cluster = LocalCluster.start(tmp_dir)   # about a second
    client = await cluster.client()         # a flushed RedisCluster
    cluster.stop()

Each node is a `redis-server` child process with no persistence; `redis-cli
--cluster create` assigns the 16384 slots.  `available()` says whether both
programs are installed.  With ``replicas=1`` each master has a replica (six
nodes) and :meth:`LocalCluster.kill_master` kills one master (SIGKILL) for its
replica to take over after ``node_timeout`` ms (tests/bot/store/test_failover.py,
benchmarks/load_test.py).
"""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from redis.asyncio.cluster import RedisCluster

from bot.store import RedisClient

MASTERS = 3
BUS_OFFSET = 10_000  # Redis Cluster's node-to-node bus listens on port + 10000


def available() -> bool:
    return bool(shutil.which("redis-server") and shutil.which("redis-cli"))


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(count: int) -> list[int]:
    # Both the client port and its bus port must be free; random, so parallel
    # sessions rarely collide (a collision fails start-up loudly, not silently).
    ports: list[int] = []
    while len(ports) < count:
        port = random.randrange(20_000, 30_000)
        if port not in ports and _free(port) and _free(port + BUS_OFFSET):
            ports.append(port)
    return ports


@dataclass
class LocalCluster:
    ports: list[int]
    processes: list[subprocess.Popen[bytes]]
    commands: list[list[str]] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    @classmethod
    def start(cls, directory: Path, timeout: float = 20.0, *, replicas: int = 0,
              node_timeout: int | None = None) -> LocalCluster:
        ports = _free_ports(MASTERS * (1 + replicas))
        extra = [] if node_timeout is None else ["--cluster-node-timeout", str(node_timeout)]
        extra += ["--repl-diskless-sync-delay", "0"]  # replicas in sync at once (not 5 s on)
        commands = [
            ["redis-server", "--cluster-enabled", "yes",
             "--cluster-config-file", str(directory / f"nodes-{port}.conf"),
             "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--dir", str(directory), *extra,
             "--logfile", str(directory / f"redis-{port}.log")]
            for port in ports
        ]  # fmt: skip
        processes = [_spawn(command) for command in commands]
        cluster = cls(ports, processes, commands)
        try:
            deadline = time.monotonic() + timeout
            cluster._wait(deadline, lambda: all(_cli(p, "ping") == "PONG" for p in ports))
            subprocess.run(
                ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports),
                 "--cluster-replicas", str(replicas), "--cluster-yes"],
                check=True, capture_output=True, timeout=timeout,
            )  # fmt: skip
            cluster._wait(deadline, lambda: all(
                "cluster_state:ok" in _cli(p, "cluster", "info") for p in ports))
            # a replica that never synced cannot take over: wait until each has
            cluster._wait(deadline, lambda: all(
                "role:master" in info or "master_link_status:up" in info
                for info in (_cli(p, "info", "replication") for p in ports)))
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _wait(self, deadline: float, ready: Callable[[], bool]) -> None:
        while not ready():
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                raise RuntimeError(f"the local Redis Cluster on {self.ports} did not come up")
            time.sleep(0.05)

    def masters(self) -> list[int]:
        """The ports of the nodes that are masters now (that still run)."""
        return [port for port, process in zip(self.ports, self.processes, strict=True)
                if process.poll() is None and "role:master" in _cli(port, "info", "replication")]

    def kill_master(self, port: int | None = None) -> int:
        """SIGKILL a master (the first one, or ``port``'s); returns its port."""
        port = self.masters()[0] if port is None else port
        process = self.processes[self.ports.index(port)]
        process.kill()
        process.wait()
        return port

    def restart(self, port: int) -> None:
        """Start a killed node again: it rejoins (as a replica of whoever took over)."""
        assert self.commands is not None
        index = self.ports.index(port)
        self.processes[index] = _spawn(self.commands[index])

    def masters_with_replica(self) -> list[int]:
        """The masters that a replica could replace now."""
        return [port for port in self.masters()
                if "connected_slaves:0" not in _cli(port, "info", "replication")]

    def healthy(self) -> bool:
        """Every live node says all slots are served (after a failover: by the replica)."""
        alive = [p for p, process in zip(self.ports, self.processes, strict=True)
                 if process.poll() is None]
        return all("cluster_state:ok" in _cli(p, "cluster", "info") for p in alive)

    async def client(self) -> RedisCluster:
        """A client on the cluster, every master flushed."""
        client = RedisCluster.from_url(self.url)
        await client.flushall(target_nodes=RedisCluster.PRIMARIES)
        return client

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            if process.poll() is None:
                process.kill()
                process.wait()


async def every_key(redis: RedisClient, pattern: str = "*") -> list[bytes]:
    """KEYS on any back end: on a cluster over every master (plain KEYS asks one node)."""
    if isinstance(redis, RedisCluster):
        return list(await redis.keys(pattern, target_nodes=RedisCluster.PRIMARIES))
    return list(await redis.keys(pattern))


def _spawn(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cli(port: int, *command: str) -> str:
    done = subprocess.run(["redis-cli", "-p", str(port), *command], capture_output=True,
                          text=True, timeout=5)
    return done.stdout.strip()
