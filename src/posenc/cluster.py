"""Executors: where many independent pieces of work run (this machine's processes, or a Ray cluster): the one
process pool posenc starts (:func:`process_pool`) and the one way it connects to Ray (:func:`connect_ray`).

``posenc sweep`` and ``posenc report`` take ``--executor local|ray`` and ``--address``. Ray is optional
(``pip install 'posenc[ray]'``); nothing imports it until a Ray executor is asked for.

Addresses: ``"auto"`` is the cluster started on this machine with ``ray start``; ``"HOST:PORT"`` a head node (the
port ``ray start --head --port`` printed); ``"local"`` a private one-machine Ray started for this call. Ray Client
addresses (``ray://``) are refused: results are written to a SQLite file on the driver, so the driver must be a
node of the cluster (docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing as mp
import os
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from posenc.errors import PosencError
from posenc.names import Registry

__all__ = ["EXECUTORS", "RAY_CONNECT_TIMEOUT_S", "STOP_GRACE_S", "check_executor", "check_address", "check_reachable",
           "connect_ray", "process_pool", "finish_before_interrupt", "why_a_worker_died"]

#: where a sweep's runs go: each executor by name, with what it is (``posenc sweep --executor``'s choices and help)
EXECUTORS: Registry[str] = Registry("executor")
EXECUTORS.register("local", "a pool of worker processes on this machine")
EXECUTORS.register("ray", "Ray tasks on a cluster (--address)")
#: how long a Ray head may take to accept a connection before posenc refuses its address (seconds); a head that
#: runs answers within milliseconds, even across a network
RAY_CONNECT_TIMEOUT_S = 2.0


def check_executor(executor: Any) -> str:
    """``executor`` if it is one of :data:`EXECUTORS`; anything else raises, naming the valid ones."""
    EXECUTORS.get(executor)  # an unknown one raises UnknownName, a PosencError naming the valid ones
    return executor


def check_address(address: str | None) -> str:
    """The Ray address in its checked form (``None`` means ``"auto"``); a malformed one raises before any work."""
    address = "auto" if address is None else address
    if not isinstance(address, str):
        raise PosencError(f"Ray address must be a string such as '127.0.0.1:6379' or 'auto', got {address!r}")
    if address in ("auto", "local"):
        return address
    host, _, port = address.rpartition(":")
    if address.startswith("ray://") or not host or not port.isdigit():
        raise PosencError(f"Ray address {address!r} is not HOST:PORT or 'auto'; pass e.g. --address 127.0.0.1:6379 "
                          f"(the port `ray start --head --port` printed)")
    return address


def check_reachable(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT_S) -> str:
    """The checked address (:func:`check_address`) once a ``HOST:PORT`` head has accepted a TCP connection within
    ``timeout`` seconds; an address that refuses or does not answer raises, naming it, before Ray is imported (which
    takes seconds) and before any work. ``"auto"`` and ``"local"`` are left to Ray."""
    address = check_address(address)
    if address in ("auto", "local"):
        return address
    host, _, port = address.rpartition(":")
    start = time.monotonic()
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        waited = time.monotonic() - start
        why = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
        raise PosencError(f"cannot reach a Ray head at {address} ({why}, after {waited:.1f} s); start one there with "
                          f"`ray start --head --port {port}`, check the host and port, or pass --address auto on a "
                          f"machine that runs one") from exc
    return address


def connect_ray(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT_S) -> tuple[Any, bool]:
    """``(ray, started)``: the ``ray`` module, connected to ``address`` (see the module docstring).

    An unreachable head fails within ``timeout`` seconds with a clear error. ``started`` is ``False`` when this
    process was already connected (the caller then leaves the connection open for its owner).
    """
    address = check_reachable(address, timeout)  # before importing ray: an unreachable head is refused in seconds
    try:
        import ray
    except ImportError as exc:
        raise PosencError("the Ray executor needs ray: pip install 'posenc[ray]'") from exc
    if ray.is_initialized():
        return ray, False
    # a private Ray needs no token; left to Ray, starting one writes ~/.ray/auth_token, and every cluster that
    # `ray start` brings up afterwards on this machine then asks for it
    private = address == "local" and "RAY_AUTH_MODE" not in os.environ
    if private:
        os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        ray.init(address=None if address == "local" else address, log_to_driver=False, logging_level="ERROR",
                 include_dashboard=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise PosencError(f"cannot connect to Ray at {address!r} ({str(exc).splitlines()[0]}); start a cluster with "
                          f"`ray start --head` or pass --address HOST:PORT (a cluster with token authentication "
                          f"needs its token here too: RAY_AUTH_TOKEN or ~/.ray/auth_token)") from exc
    finally:
        if private:
            os.environ.pop("RAY_AUTH_MODE", None)
    return ray, True


#: how often a pool worker checks that the process that started it is still alive (seconds)
PARENT_POLL_S = 0.5
#: how long a stopped pool's workers may take to finish what they must finish (storing a result) before they are
#: killed (seconds)
STOP_GRACE_S = 3.0


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` fresh processes (``spawn``: forking after torch has started its thread pools can
    deadlock) that exit when this process dies, whatever killed it (:func:`_worker_init`).

    Used as ``with process_pool(n) as pool:``. Leaving the block normally waits for the work submitted; leaving it by
    an exception, Ctrl-C included, stops the pool at once: work not started is cancelled, and every worker is
    interrupted (it finishes a :func:`finish_before_interrupt` block first, such as storing a finished result) and
    killed after :data:`STOP_GRACE_S` seconds. Ctrl-C at a terminal reaches the whole process group: it ends the
    workers the same way (:func:`_on_interrupt`).
    """
    # a process started with Ctrl-C ignored (a background job of a script) keeps its workers ignoring it too:
    # otherwise a SIGINT to the group would end the workers while this process went on, and report them dead
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_worker_init,
                               initargs=(os.getpid(), ignored))
    try:
        yield pool
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)


def why_a_worker_died() -> str:
    """What can end a pool's worker before its work, for the message that says it died: the machine (a kill, memory)
    and, where the main module is a script of its own, a script that starts the pool without ``if __name__ ==
    "__main__":`` (a spawned worker imports the main script again, and that script starts a pool inside it)."""
    why = "killed from outside, or out of memory"
    main = sys.modules.get("__main__")
    script = getattr(main, "__file__", None) or ""
    if script.endswith(".py") and not script.endswith("__main__.py"):  # `python x.py`, not `python -m` or a command
        why += (f"; or the script {script} starts the pool outside `if __name__ == \"__main__\":`, and each worker, "
                f"importing the script again, starts it once more: put the call under that line, as Python's own "
                f"message above says")
    return why


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started, interrupt every worker, kill those still alive after the grace period."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor's own record of them
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() below forgets it: kept to join it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if process.is_alive():
                os.kill(process.pid, signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)
    # Wait for the executor's own thread to see its workers gone and close its pipes now: left running, it may close
    # them while the interpreter's exit wakes it, and Python 3.11 then prints a traceback ("Bad file descriptor")
    # after posenc has said what it kept. A second shutdown(wait=True) cannot do it: the first one dropped the
    # executor's reference to that thread (CPython 3.11's ProcessPoolExecutor.shutdown), so it is joined here.
    # Every worker is dead by now, so this returns at once.
    if manager is not None:
        with contextlib.suppress(RuntimeError):
            manager.join(STOP_GRACE_S)


#: a pool worker's state under Ctrl-C: how deep it is in blocks that must finish, and whether Ctrl-C came meanwhile
_shield = {"depth": 0, "pending": False}


def _on_interrupt(signum: int, frame: Any) -> None:
    """A pool worker's Ctrl-C: end the process now, or as soon as its :func:`finish_before_interrupt` block ends.
    (The default, a KeyboardInterrupt, would only fail the current task: the pool would go on to the next.)"""
    if _shield["depth"]:
        _shield["pending"] = True
    else:
        os._exit(130)


@contextlib.contextmanager
def finish_before_interrupt() -> Iterator[None]:
    """Ctrl-C waits for this block to finish (say, a finished run being stored). In a pool worker it then ends the
    worker; in the main thread of any other process (a sweep's driver storing what a Ray task returned, a sweep run
    in this process) the process's own Ctrl-C handler then runs, a KeyboardInterrupt by default. Elsewhere (another
    thread, Ctrl-C ignored) it changes nothing."""
    held: list[int] | None = None
    previous = signal.getsignal(signal.SIGINT)
    if (threading.current_thread() is threading.main_thread() and callable(previous)
            and previous is not _on_interrupt):
        held = []
        signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    _shield["depth"] += 1
    try:
        yield
    finally:
        _shield["depth"] -= 1
        if held is not None:
            signal.signal(signal.SIGINT, previous)
        if not _shield["depth"] and _shield["pending"]:
            os._exit(130)
        if held:
            previous(signal.SIGINT, None)  # the Ctrl-C that came meanwhile, now: default_int_handler raises


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(1)  # the parent is gone (killed, even with SIGKILL): nobody will read this work


def _worker_init(parent_pid: int, interrupt_ignored: bool = False) -> None:
    """Make a pool worker exit when its parent dies, and end at Ctrl-C (:func:`_on_interrupt`) unless its parent
    ignores Ctrl-C (``interrupt_ignored``: then the worker ignores it too); it prints no library warnings.

    Linux: ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` asks the kernel to signal the worker when its parent dies. Everywhere:
    a daemon thread that polls the parent's pid (a dead parent's children are re-parented, so ``getppid`` changes).
    Work cut short this way is simply missing (a sweep's next call runs it again).
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no libc symbol: the watchdog below still works
            pass
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True, name="posenc-parent-watch").start()
    signal.signal(signal.SIGINT, signal.SIG_IGN if interrupt_ignored else _on_interrupt)
    # the parent speaks for the pool: a library's warning (a kernel that cannot be built, a deprecation) would
    # otherwise be printed once per worker, between the progress lines
    warnings.simplefilter("ignore")
    logging.getLogger().setLevel(logging.ERROR)
