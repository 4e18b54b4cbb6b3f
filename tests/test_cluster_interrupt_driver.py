"""``posenc.cluster.finish_before_interrupt`` outside a pool worker: in a process's main thread (a sweep's driver
storing what a Ray task returned, a sweep run in this process) Ctrl-C waits for the block, then the process's own
Ctrl-C handler runs (a KeyboardInterrupt by default). Ctrl-C is sent to this process for real (``os.kill``)."""

import os
import signal
import threading
import time

import pytest

from posenc.cluster import finish_before_interrupt

pytestmark = pytest.mark.usefixtures("ctrl_c_interrupts")


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs in the main thread at its next instruction: here, if nothing holds it


def test_ctrl_c_inside_the_block_waits_for_its_end_then_interrupts():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with finish_before_interrupt():
            _ctrl_c()
            done.append("stored")  # what must finish: reached although Ctrl-C came before it
        done.append("after")  # never reached: the interrupt comes as the block ends
    assert done == ["stored"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back


def test_no_ctrl_c_no_interrupt_and_the_handler_is_back():
    with finish_before_interrupt():
        value = 1 + 1
    assert value == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C after the block interrupts at once, as before it
        _ctrl_c()


def test_nested_blocks_interrupt_only_when_the_outer_one_ends():
    done = []
    with pytest.raises(KeyboardInterrupt):
        with finish_before_interrupt():
            with finish_before_interrupt():
                _ctrl_c()
                done.append("inner")
            done.append("outer")  # still inside the outer block: Ctrl-C keeps waiting
    assert done == ["inner", "outer"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_handler_of_the_process_runs_in_place_of_the_interrupt():
    seen = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with finish_before_interrupt():
            _ctrl_c()
            assert seen == []  # held while the block runs
        assert seen == [signal.SIGINT]  # then given to the process's own handler, once
    finally:
        signal.signal(signal.SIGINT, before)


def test_ignored_ctrl_c_stays_ignored():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with finish_before_interrupt():
            _ctrl_c()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_another_thread_can_use_the_block():
    # signal handlers can only be set in the main thread: in another one the block changes nothing and works
    errors = []

    def work():
        try:
            with finish_before_interrupt():
                pass
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
