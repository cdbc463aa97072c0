"""Whether a process we started is still alive: every thread counts, not only the main one."""
import subprocess
import sys
import time

from uno_platform import system

# The main thread ends (pthread_exit) and becomes a zombie; another thread goes on for a while, as the
# threads of a process being killed go on with their exit, holding its memory.
MAIN_ENDS_FIRST = ("import ctypes, sys, threading, time; threading.Thread(target=time.sleep, args=(30,)).start(); "
                   "print('ready', flush=True); ctypes.CDLL(None).pthread_exit(None)")


def test_a_process_whose_main_thread_ended_is_alive_until_its_last_thread_is_done():
    proc = subprocess.Popen([sys.executable, "-c", MAIN_ENDS_FIRST], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        started = system.start_time(proc.pid)
        system.wait_for(lambda: open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z", 5,
                        "the main thread to end")
        time.sleep(0.2)
        assert system.is_alive(proc.pid, started)
        assert system.stop_process(proc.pid, started)
        assert not system.is_alive(proc.pid, started)
    finally:
        proc.kill()
        proc.wait()
