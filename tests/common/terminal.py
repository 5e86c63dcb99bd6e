"""A command run on a terminal of its own (a pseudo-terminal), as the tests
of progress bars need: gfir draws its bar only where stderr is a terminal.
"""
import os
import pty


def run_on_terminal(argv, cwd, env=None, one_core=True):
    """Runs argv in cwd with stdin and stderr on a new pseudo-terminal and
    stdout on /dev/null (on one core unless one_core is false, so that work
    of a few G multiply-adds lasts over a second on any machine). Returns
    its exit code and everything it wrote to the terminal, as text."""
    pid, fd = pty.fork()
    if pid == 0:
        if one_core:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        os.chdir(cwd)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.execve(argv[0], argv, env if env is not None else os.environ)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")
