# SPDX-License-Identifier: MIT
"""Runs a command on a new pseudo-terminal, as a shell in a terminal window
would: the command leads the terminal's session and is its foreground
process group. Once the file READY exists (the command made it), KEY is
typed (ctrl-c, ctrl-backslash) or the terminal is hung up (hangup). Exits
with the command's status, 128+N when a signal N ended it; what the command
wrote to the terminal is dropped (its lines go to a file of its own).

usage: run_pty.py READY KEY COMMAND...
"""
import os
import pty
import sys
import time

KEYS = {"ctrl-c": b"\x03", "ctrl-backslash": b"\x1c"}


def main():
    ready, key, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    if key not in KEYS and key != "hangup":
        sys.exit(f"run_pty.py: unknown key {key!r}")
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    deadline = time.monotonic() + 30
    while not os.path.exists(ready) and time.monotonic() < deadline:
        time.sleep(0.05)
    if key == "hangup":
        os.close(master)
    else:
        os.write(master, KEYS[key])
        # drain the terminal so the command never blocks on its output
        try:
            while os.read(master, 4096):
                pass
        except OSError:
            pass  # EIO: every writer of the terminal is gone
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status)
             else 128 + os.WTERMSIG(status))


main()
