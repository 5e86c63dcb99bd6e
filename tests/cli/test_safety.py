#!/usr/bin/python3
"""Nothing lost, nothing unbounded: the gfir executable driven as a careless
user and an attacker would drive it (issue 18).

    test_safety.py GFIR GROUP   runs one group: outputs (special files, links,
                                pipes, --response), signals, limits (work
                                proportional to the data), corruption
                                (non-finite samples, short files), hostile
                                (names in the plot, override values, gains)

Each test reproduces a way gfir used to lose data, hang, crash or run without
bound, and checks what it does now. Helpers come from test_cli.py. Exit 77
(skipped) without NumPy and SciPy.
"""
import io
import os
import re
import resource
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402  (sets GFIR from argv, exits 77 without NumPy)
from test_cli import GFIR, REL_L2, conv, env_for, fails, impulse_response, leftovers, one_line, \
    read, rel_l2, test  # noqa: E402

np = test_cli.np
wavfile = test_cli.wavfile
signal_ = test_cli.signal

# beyond 65536 taps float rounding grows with the filter's length
REL_L2_LONG = 1e-4
MB = 1024  # memory figures are in KB


# Runs argv[2:] as its child and writes "STATUS MAXRSS" (wait4's) to argv[1].
# ru_maxrss counts the image a process was forked as, so gfir is forked from
# this small interpreter (a few MB), not from the test's, which holds NumPy.
LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{status} {usage.ru_maxrss}")
"""


def run_measured(d, args, timeout=120, env=None, stdin=None, preexec_fn=None):
    """Runs gfir and returns (exit code, or -signal; stdout bytes; stderr text;
    peak resident memory in KB, the kernel's count at its exit: at least the
    launcher's few MB). A run past the timeout is killed and fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as report:
        p = subprocess.Popen([sys.executable, "-I", "-S", "-c", LAUNCH, report.name, GFIR,
                              *args], cwd=d.path, env=env_for(d, env), stdout=out, stderr=err,
                             stdin=stdin if stdin is not None else subprocess.DEVNULL,
                             preexec_fn=preexec_fn, start_new_session=True)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise AssertionError(f"gfir {' '.join(args)}: still running after {timeout} s")
        assert p.returncode == 0, f"the launcher failed: exit {p.returncode}"
        status, peak = map(int, report.read().split())
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), out.read(),
                err.read().decode(errors="replace"), peak)


def wav_bytes(data):
    """Samples of a WAV given as bytes (from a pipe or a FIFO)."""
    _, y = wavfile.read(io.BytesIO(data))
    return y.astype(np.float64)


def stream_samples(data):
    """Float samples of a WAV whose lengths say 0xFFFFFFFF (written by a
    streaming writer that could not know them): everything after 'data'."""
    at = data.index(b"data") + 8
    assert struct.unpack("<I", data[4:8])[0] == 0xFFFFFFFF, "RIFF size should say unknown"
    return np.frombuffer(data[at:], dtype="<f4").astype(np.float64)


def long_job(d, seconds=30):
    """Arguments of a job that runs for a few seconds, writing out.wav."""
    d.wav("long.wav", d.noise(48000 * seconds, 2))
    return ["long.wav", "out.wav", "--preset", "rumble", "--backend", "cpu", "--kernel", "gold"]


def start_and_wait_for_tmp(d, args, preexec_fn=None):
    p = subprocess.Popen([GFIR, *args], cwd=d.path, env=env_for(d), stderr=subprocess.PIPE,
                         preexec_fn=preexec_fn)
    for _ in range(500):
        if leftovers(d) or p.poll() is not None:
            break
        time.sleep(0.01)
    assert leftovers(d), "the temporary file beside OUTPUT never appeared"
    return p


# ---- outputs: special files, links, pipes, --response ---------------------------

@test("outputs")
def response_never_overwrites_input(d):
    # the plot must be named *.svg: INPUT reached through a link or another name
    x = d.wav("x.wav", d.noise(1000))
    before = open(x, "rb").read()
    os.symlink("x.wav", d.p("x.svg"))
    os.link(d.p("x.wav"), d.p("hard.svg"))
    fails(d, ["x.wav", "y.wav", "--preset", "lowpass", "--response", "x.svg"], 1, "--response",
          "INPUT", output="y.wav")
    fails(d, ["x.wav", "--preset", "lowpass", "--response", "./hard.svg"], 1, "INPUT",
          output="y.wav")
    assert open(x, "rb").read() == before, "INPUT was overwritten by the plot"
    os.symlink("y.wav", d.p("y.svg"))
    fails(d, ["x.wav", "y.wav", "--preset", "lowpass", "--response", "y.svg"], 1, "same file",
          output="y.wav")
    # the plot follows OUTPUT's rules: through a link to its target, whole
    os.makedirs(d.p("plots"))
    os.symlink("plots/lp.svg", d.p("link.svg"))
    d.run("--response", "link.svg", "--preset", "lowpass")
    assert os.path.islink(d.p("link.svg"))
    ET.parse(d.p("plots/lp.svg"))
    assert not leftovers(d) and not [f for f in os.listdir(d.p("plots")) if ".gfir-" in f]


@test("outputs")
def special_outputs_written_through(d):
    d.wav("x.wav", d.noise(5000, 2))
    d.run("x.wav", "ref.wav", "--preset", "lowpass")
    want = read(d.p("ref.wav"))[1]

    # a FIFO: read by another thread while gfir writes; it stays a FIFO
    os.mkfifo(d.p("fifo"))
    got = {}

    def reader():
        with open(d.p("fifo"), "rb") as f:
            got["data"] = f.read()
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    r = run_measured(d, ["x.wav", "fifo", "--preset", "lowpass", "--format", "wav"], timeout=60)
    if t.is_alive():    # gfir never opened the FIFO: let the reader go
        os.close(os.open(d.p("fifo"), os.O_WRONLY | os.O_NONBLOCK))
    t.join(10)
    assert r[0] == 0, r[2]
    assert stat.S_ISFIFO(os.lstat(d.p("fifo")).st_mode), "the FIFO was replaced by a file"
    assert "data" in got and rel_l2(wav_bytes(got["data"]), want) < REL_L2

    # a character device, through a link of our own: were it replaced, only the
    # link would be lost, never the machine's /dev/null
    os.symlink("/dev/null", d.p("null.wav"))
    d.run("x.wav", "null.wav", "--preset", "lowpass")
    assert os.path.islink(d.p("null.wav")) and stat.S_ISCHR(os.stat(d.p("null.wav")).st_mode)

    # "-": standard output, WAV by default, with its length when INPUT has one
    r = subprocess.run([GFIR, "x.wav", "-", "--preset", "lowpass"], cwd=d.path,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert rel_l2(wav_bytes(r.stdout), want) < REL_L2

    # a link to standard output (as /dev/stdout is): written through, the link kept
    os.symlink("/proc/self/fd/1", d.p("stdout.wav"))
    r = subprocess.run([GFIR, "x.wav", "stdout.wav", "--preset", "lowpass"], cwd=d.path,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert os.path.islink(d.p("stdout.wav")), "the link to standard output became a file"
    assert rel_l2(wav_bytes(r.stdout), want) < REL_L2
    assert not leftovers(d)

    # formats libsndfile cannot write to a pipe are refused in one line
    r = subprocess.run([GFIR, "x.wav", "-", "--preset", "lowpass", "--format", "aiff"],
                       cwd=d.path, capture_output=True, text=False, timeout=60)
    assert r.returncode == 1 and r.stdout == b""
    one_line(r.stderr.decode(), "pipe", "WAV")
    # standard output carries one thing
    fails(d, ["x.wav", "-", "--preset", "lowpass", "--describe"], 2, "--describe")


@test("outputs")
def standard_output_may_be_a_socket(d):
    # a child of Node or libuv, of inetd or of systemd's socket activation
    # has a socket for standard output: "-" writes through it as through a
    # pipe (it used to be refused as "a socket"); a named socket stays refused
    d.wav("x.wav", d.noise(5000, 2))
    d.run("x.wav", "ref.wav", "--preset", "lowpass")
    ours, theirs = socket.socketpair()
    with ours:
        p = subprocess.Popen([GFIR, "x.wav", "-", "--preset", "lowpass"], cwd=d.path,
                             env=env_for(d), stdout=theirs, stderr=subprocess.PIPE)
        theirs.close()
        data = b""
        while chunk := ours.recv(1 << 16):
            data += chunk
        err = p.communicate(timeout=60)[1]
    assert p.returncode == 0, err
    assert rel_l2(wav_bytes(data), read(d.p("ref.wav"))[1]) < REL_L2
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(d.p("sock.wav"))
        fails(d, ["x.wav", "sock.wav", "--preset", "lowpass"], 1, "sock.wav", "socket",
              output="sock.wav")
    assert stat.S_ISSOCK(os.lstat(d.p("sock.wav")).st_mode)


@test("outputs")
def symlink_output_keeps_link(d):
    d.wav("x.wav", d.noise(1000))
    os.makedirs(d.p("sub"))
    with open(d.p("sub/target.wav"), "wb") as f:
        f.write(b"old")
    os.symlink("sub/target.wav", d.p("link.wav"))
    d.run("x.wav", "link.wav", "--preset", "lowpass")
    assert os.path.islink(d.p("link.wav")), "the link was replaced"
    assert os.readlink(d.p("link.wav")) == "sub/target.wav"
    once = read(d.p("sub/target.wav"))[1]
    assert once.shape == (1000,)
    # a link to a link, relative to its own folder
    os.symlink("../link.wav", d.p("sub/up.wav"))
    d.run("x.wav", "sub/up.wav", "--preset", "lowpass", "--gain", "-6")
    assert os.path.islink(d.p("sub/up.wav")) and os.path.islink(d.p("link.wav"))
    assert rel_l2(read(d.p("sub/target.wav"))[1], once * 10 ** (-6 / 20)) < REL_L2
    # a dangling link: the file it names is made
    os.symlink("sub/new.wav", d.p("dangling.wav"))
    d.run("x.wav", "dangling.wav", "--preset", "lowpass")
    assert os.path.islink(d.p("dangling.wav")) and os.path.isfile(d.p("sub/new.wav"))
    assert not leftovers(d) and not [f for f in os.listdir(d.p("sub")) if ".gfir-" in f]


@test("outputs")
def read_only_and_setuid_outputs(d):
    d.wav("x.wav", d.noise(1000))
    with open(d.p("ro.wav"), "wb") as f:
        f.write(b"keep")
    os.chmod(d.p("ro.wav"), 0o444)
    fails(d, ["x.wav", "ro.wav", "--preset", "lowpass"], 1, "ro.wav", "read-only",
          output="ro.wav")
    assert open(d.p("ro.wav"), "rb").read() == b"keep"
    assert stat.S_IMODE(os.stat(d.p("ro.wav")).st_mode) == 0o444
    # an existing file's permissions are kept, never setuid or setgid
    with open(d.p("su.wav"), "wb") as f:
        f.write(b"x")
    os.chmod(d.p("su.wav"), 0o6750)
    d.run("x.wav", "su.wav", "--preset", "lowpass")
    assert stat.S_IMODE(os.stat(d.p("su.wav")).st_mode) == 0o750
    os.chmod(d.p("su.wav"), 0o640)
    d.run("x.wav", "su.wav", "--preset", "lowpass")
    assert stat.S_IMODE(os.stat(d.p("su.wav")).st_mode) == 0o640
    # a new file gets 0666 less the umask
    old = os.umask(0o027)
    try:
        d.run("x.wav", "new.wav", "--preset", "lowpass")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(d.p("new.wav")).st_mode) == 0o640


@test("outputs")
def input_from_standard_input(d):
    d.wav("x.wav", d.noise(3000, 2))
    d.run("x.wav", "ref.wav", "--preset", "lowpass")
    d.run("ref.wav", "ref2.wav", "--preset", "lowpass")
    data = open(d.p("x.wav"), "rb").read()
    r = subprocess.run([GFIR, "-", "y.wav", "--preset", "lowpass"], cwd=d.path, input=data,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert rel_l2(read(d.p("y.wav"))[1], read(d.p("ref.wav"))[1]) < REL_L2
    # pipe to pipe: the middle run cannot know the length and says so in its header
    first = subprocess.run([GFIR, "-", "-", "--preset", "lowpass"], cwd=d.path, input=data,
                           capture_output=True, timeout=60)
    assert first.returncode == 0, first.stderr
    got = stream_samples(first.stdout)
    assert rel_l2(got, read(d.p("ref.wav"))[1].reshape(-1)) < REL_L2
    second = subprocess.run([GFIR, "-", "z.wav", "--preset", "lowpass"], cwd=d.path,
                            input=first.stdout, capture_output=True, timeout=60)
    assert second.returncode == 0, second.stderr
    assert rel_l2(read(d.p("z.wav"))[1], read(d.p("ref2.wav"))[1]) < REL_L2


@test("outputs")
def fifo_input_opened_once(d):
    d.wav("x.wav", d.noise(3000))
    d.run("x.wav", "ref.wav", "--preset", "lowpass")
    os.mkfifo(d.p("in.fifo"))
    data = open(d.p("x.wav"), "rb").read()

    def writer():
        with open(d.p("in.fifo"), "wb") as f:
            f.write(data)
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    # --describe and --response read INPUT's rate, the job its samples: one open
    try:
        rc, out, err, _ = run_measured(d, ["in.fifo", "y.wav", "--preset", "lowpass",
                                           "--describe", "--response", "p.svg"], timeout=60)
    finally:
        if t.is_alive():
            os.close(os.open(d.p("in.fifo"), os.O_RDONLY | os.O_NONBLOCK))
    assert rc == 0, err
    assert b"chain at 48000 Hz" in out
    assert rel_l2(read(d.p("y.wav"))[1], read(d.p("ref.wav"))[1]) < REL_L2
    ET.parse(d.p("p.svg"))


@test("outputs")
def long_output_names(d):
    # the temporary file's name is 13 characters longer than OUTPUT's: it is
    # cut short where it would pass 255
    d.wav("x.wav", d.noise(500))
    for n in (240, 242, 243, 250, 255):
        name = "o" * (n - 4) + ".wav"
        d.run("x.wav", name, "--preset", "lowpass")
        assert read(d.p(name))[1].shape == (500,), n
    assert not leftovers(d)


@test("outputs")
def directory_synced_after_rename(d):
    assert shutil.which("strace"), "strace is needed (tools/setup.sh installs it)"
    d.wav("x.wav", d.noise(500))
    os.makedirs(d.p("sub"))
    # LeakSanitizer cannot run under ptrace: off for a sanitized gfir
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    r = subprocess.run(["strace", "-f", "-o", d.p("trace.txt"), "-e",
                        "trace=openat,fsync,rename,renameat,renameat2", GFIR, "x.wav",
                        "sub/out.wav", "--preset", "lowpass"], cwd=d.path, capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    calls = [line.split(None, 1)[1] for line in open(d.p("trace.txt")) if " " in line]
    # the rename goes through the directory opened when the temporary file was
    # made (issue 25: a directory moved mid-run cannot strand it), then that
    # directory is synced
    dir_fds = {m.group(1) for c in calls
               for m in [re.match(r'openat\(AT_FDCWD, "sub/?", .*O_DIRECTORY.*\) = (\d+)', c)]
               if m}
    renamed = [i for i, c in enumerate(calls)
               if re.match(r'renameat2?\((\d+), "\.out\.wav\.gfir-\w{6}", \1, "out\.wav"', c)
               and c.split("(")[1].split(",")[0] in dir_fds]
    assert renamed, "no rename onto OUTPUT through its directory:\n" + "\n".join(calls)
    fd = calls[renamed[0]].split("(")[1].split(",")[0]
    for c in calls[renamed[0]:]:
        if re.match(rf"fsync\({fd}\)\s+= 0", c):
            return
    raise AssertionError("OUTPUT's directory was not synced after the rename:\n" +
                         "\n".join(calls[renamed[0]:]))


# ---- signals -------------------------------------------------------------------

@test("signals")
def ignored_signals_stay_ignored(d):
    # nohup ignores SIGHUP, a shell's background job SIGINT: gfir must not
    # turn them back into signals that end it
    args = long_job(d, 10)

    def ignore():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    p = start_and_wait_for_tmp(d, args, ignore)
    p.send_signal(signal.SIGHUP)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, f"exit {p.returncode}: {err}"
    assert read(d.p("out.wav"))[1].shape == (480000, 2)
    assert not leftovers(d)


@test("signals")
def quit_and_other_signals_clean_up(d):
    args = long_job(d)
    for sig in (signal.SIGQUIT, signal.SIGUSR1, signal.SIGALRM):
        with open(d.p("out.wav"), "wb") as f:
            f.write(b"precious")

        def no_core():
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        p = start_and_wait_for_tmp(d, args, no_core)
        p.send_signal(sig)
        p.communicate(timeout=60)
        assert p.returncode == -sig, f"{sig.name}: exit {p.returncode}"
        assert open(d.p("out.wav"), "rb").read() == b"precious", sig.name
        assert not leftovers(d), f"{sig.name} left {leftovers(d)}"


@test("signals")
def file_size_limit_fails_cleanly(d):
    # `ulimit -f`: the write past it fails like any other, in one line
    d.wav("x.wav", d.noise(48000, 2))
    with open(d.p("out.wav"), "wb") as f:
        f.write(b"precious")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
    rc, out, err, _ = run_measured(d, ["x.wav", "out.wav", "--preset", "lowpass"],
                                   preexec_fn=limit)
    assert rc == 1, f"exit {rc}: {err}"
    one_line(err, "out.wav", "File too large")
    assert open(d.p("out.wav"), "rb").read() == b"precious"
    assert not leftovers(d)


@test("signals")
def failed_write_does_not_wait_for_the_input_pipe(d):
    # `arecord | gfir - out.wav` past `ulimit -f`: the pipe stays open and
    # silent, and gfir used to wait in its read for the rest of the input
    # before saying the write had failed; now it says so at once
    d.wav("x.wav", d.noise(48000 * 8, 2))
    data = open(d.p("x.wav"), "rb").read()

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
    p = subprocess.Popen([GFIR, "-", "out.wav", "--preset", "lowpass"], cwd=d.path,
                         env=env_for(d), stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limit)

    def feed():
        try:
            p.stdin.write(data[:len(data) // 4])    # 2 s of 8: then nothing, pipe open
            p.stdin.flush()
        except OSError:
            pass
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    hung = p.returncode is None
    p.stdin.close()
    err = p.stderr.read().decode()
    p.wait(30)
    assert not hung, f"gfir waited for the input pipe after its write failed: {err}"
    assert p.returncode == 1, f"exit {p.returncode}: {err}"
    one_line(err, "out.wav", "File too large")
    assert not os.path.exists(d.p("out.wav")) and not leftovers(d)


@test("signals")
def stale_temporary_files_cleaned(d):
    d.wav("x.wav", d.noise(1000))
    args = long_job(d)
    # SIGKILL: nothing can clean up after it
    p = start_and_wait_for_tmp(d, args)
    p.kill()
    p.communicate()
    stale = leftovers(d)
    assert len(stale) == 1 and stale[0].startswith(".out.wav.gfir-"), stale
    assert os.path.getsize(d.p(stale[0])) > 0
    # an empty one in its first minute may be a writer's that has not locked
    # it yet: kept; one with bytes in it was locked when they were written,
    # so unlocked it is stale at any age (issue 25: a rerun within a minute
    # used to keep it)
    young_empty = d.p(".out.wav.gfir-YoUng1")
    open(young_empty, "wb").close()
    d.run("x.wav", "out.wav", "--preset", "lowpass")
    assert stale[0] not in leftovers(d), "the stale temporary file was not removed"
    assert os.path.basename(young_empty) in leftovers(d)
    old = time.time() - 3600
    os.utime(young_empty, (old, old))
    # held by a live process (as a writer holds its own): kept, however old
    held = d.p(".out.wav.gfir-HeLd01")
    other = d.p(".other.wav.gfir-abc123")          # another OUTPUT's
    odd = d.p(".out.wav.gfir-abc")                 # not gfir's pattern
    for path in (held, other, odd):
        with open(path, "wb") as f:
            f.write(b"partial")
        os.utime(path, (old, old))
    import fcntl
    with open(held, "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        d.run("x.wav", "out.wav", "--preset", "lowpass")
    left = set(os.listdir(d.path))
    assert os.path.basename(young_empty) not in left, "an old empty one was not removed"
    assert {os.path.basename(p) for p in (held, other, odd)} <= left
    assert read(d.p("out.wav"))[1].shape == (1000,)


# ---- limits: work proportional to the data ----------------------------------------

def wav_header_only(path, rate, channels, frames=256):
    """A small 16-bit WAV declaring any sample rate."""
    data = (np.arange(frames * channels) % 64).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, rate, (rate * channels * 2) & 0xFFFFFFFF,
                      channels * 2, 16)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<I", 16) + fmt)
        f.write(b"data" + struct.pack("<I", len(data)) + data)


@test("limits")
def many_preset_path_entries(d):
    # 40 directories on the path: the walk used a fixed array of 16
    dirs = [d.p(f"p{i}") for i in range(40)]
    for p in dirs:
        os.makedirs(p)
    d.text("p39/mine.ini", "[mine]\ntype = lowpass\ncutoff_hz = 2000\ntransition_hz = 400\n")
    env = {"GFIR_PRESET_PATH": ":".join(dirs)}
    d.wav("x.wav", d.noise(1000))
    d.run("x.wav", "y.wav", "--preset", "mine", env=env)
    r = d.run("--list-presets", env=env)
    assert "mine" in r.stdout and "lowpass" in r.stdout, r.stdout


@test("limits")
def absurd_sample_rates_refused(d):
    # a 1 KB WAV at 2^31 - 1 Hz used to design a 27-million-tap low-pass
    for channels in (1, 8):
        wav_header_only(d.p("huge.wav"), 2 ** 31 - 1, channels)
        # --play opens INPUT as the file path does: refused before any device
        for args in (["huge.wav", "out.wav", "--preset", "lowpass"],
                     ["huge.wav", "--describe", "--preset", "lowpass"],
                     ["huge.wav", "--play", "--preset", "lowpass"]):
            rc, _, err, rss = run_measured(d, args, timeout=60)
            assert rc == 1, f"{args}: exit {rc}"
            one_line(err, "huge.wav", "2147483647 Hz")
            assert rss < 64 * MB, f"{args}: {rss} KB"
    wav_header_only(d.p("slow.wav"), 10, 1)
    rc, _, err, _ = run_measured(d, ["slow.wav", "out.wav", "--preset", "lowpass"])
    assert rc == 1 and "10 Hz" in err, err
    # an IR at 1 Hz would be resampled to 48000 times its length
    d.wav("x.wav", d.noise(1000))
    d.wav("ir1.wav", d.noise(1000, 1, 0.1), rate=1)
    rc, _, err, rss = run_measured(d, ["x.wav", "out.wav", "--ir", "ir1.wav"], timeout=60)
    assert rc == 1, err
    one_line(err, "ir1.wav", "1 Hz")
    assert rss < 64 * MB, rss
    # in range, but resampled longer than a filter may be: refused before allocating
    d.wav("ir1k.wav", d.noise(90000, 1, 0.01), rate=1000)
    d.wav("x768.wav", d.noise(100), rate=768000)
    rc, _, err, rss = run_measured(d, ["x768.wav", "out.wav", "--ir", "ir1k.wav", "-q"],
                                   timeout=60)
    assert rc == 1, err
    one_line(err, "ir1k.wav", "taps")
    assert rss < 64 * MB, rss
    assert not os.path.exists(d.p("out.wav"))


@test("limits")
def rate_option_range_checked(d):
    for value in ("1e-300", "0", "-5", "999", "768001", "1e20", "inf"):
        fails(d, ["--describe", "--preset", "lowpass", "--rate", value], 2, "--rate")
    d.wav("ir.wav", d.noise(100, 1, 0.1))
    # with an IR, 1e-300 Hz used to spin in libsoxr for ever
    rc, _, err, _ = run_measured(d, ["--describe", "--ir", "ir.wav", "--rate", "1e-300"],
                                 timeout=30)
    assert rc == 2, err
    r = d.run("--describe", "--ir", "ir.wav", "--rate", "44100", "-q")
    assert "at 44100 Hz" in r.stdout


@test("limits")
def duration_option_range_checked(d):
    # seconds times the rate must be a frame count: a negative, zero or
    # enormous --duration is a usage error, before any device is opened
    for value in ("-1", "0", "-0", "1e-400", "31622401", "1e300", "nan", "inf"):
        fails(d, ["--monitor", "--preset", "lowpass", "--duration", value], 2, "--duration")


@test("limits")
def taps_file_read_with_bound(d):
    d.wav("x.wav", d.noise(1000))
    rc, _, err, rss = run_measured(d, ["x.wav", "out.wav", "--taps", "/dev/zero"], timeout=30)
    assert rc == 1, err
    one_line(err, "/dev/zero", "not text")
    assert rss < 64 * MB, f"{rss} KB for /dev/zero"
    # an endless line of digits: one token of bounded length
    with open(d.p("digits.txt"), "w") as f:
        f.write("1" * 1000000)
    fails(d, ["x.wav", "out.wav", "--taps", "digits.txt"], 1, "digits.txt", "not a number")
    with open(d.p("nul.txt"), "wb") as f:
        f.write(b"0.5 0.25\x00junk\n")
    fails(d, ["x.wav", "out.wav", "--taps", "nul.txt"], 1, "nul.txt", "0x00")


@test("limits")
def long_stages_fold_quickly(d):
    # two stages of 10^6 taps: the direct sum (10^12 multiply-adds) took
    # longer than two minutes; the FFT fold takes well under a second
    a = d.noise(1000000, 1, 0.01)
    b = d.noise(1000000, 1, 0.01)
    d.wav("a.wav", a)
    d.wav("b.wav", b)
    a, b = read(d.p("a.wav"))[1], read(d.p("b.wav"))[1]
    x = d.noise(2000)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    rc, _, err, _ = run_measured(d, ["x.wav", "y.wav", "--ir", "a.wav", "--ir", "b.wav",
                                     "--align", "same", "--backend", "cpu", "--kernel", "fft",
                                     "--normalize", "none"],
                                 timeout=100, env={"GFIR_FFTW_PLANNER": "estimate"})
    assert rc == 0, err
    h = signal_.fftconvolve(a, b)
    want = signal_.fftconvolve(x, h)[(len(h) - 1) // 2:][:len(x)]
    err = rel_l2(read(d.p("y.wav"))[1], want)
    assert err < REL_L2_LONG, f"rel L2 {err}"


@test("limits")
def no_fold_does_not_fold(d):
    # --no-fold used to fold anyway (two 2^20-tap stages: 10^12 multiply-adds
    # by the direct sum); now it runs the stages as they are, and its peak
    # memory stays below a folding run's by at least the folded filter (8 MB)
    for name in ("a.wav", "b.wav"):
        d.wav(name, d.noise(1 << 20, 1, 0.001))
    d.wav("x.wav", d.noise(100))
    args = ["x.wav", "y.wav", "--ir", "a.wav", "--ir", "b.wav", "--align", "causal",
            "--backend", "cpu", "--kernel", "direct", "--normalize", "none"]
    rc, _, err, rss_series = run_measured(d, args + ["--no-fold"], timeout=100)
    assert rc == 0, err
    series = read(d.p("y.wav"))[1]
    rc, _, err, rss_folded = run_measured(d, args, timeout=100)
    assert rc == 0, err
    assert rel_l2(series, read(d.p("y.wav"))[1]) < REL_L2_LONG
    assert rss_series + 8 * MB < rss_folded, \
        f"--no-fold peaked at {rss_series} KB, folding at {rss_folded} KB"


# ---- corruption: nothing wrong goes unsaid -----------------------------------------

@test("corruption")
def nonfinite_input_samples(d):
    x = d.noise(20000, 2).astype(np.float32)
    x[1000, 1] = np.nan
    x[5000, 0] = np.inf
    x[5001, 0] = -np.inf
    d.wav("x.wav", x)
    h = impulse_response(d, "lowpass")
    clean = x.astype(np.float64)
    clean[~np.isfinite(clean)] = 0
    for fmt in ("wav:float", "wav:pcm16"):
        r = d.run("x.wav", "y.wav", "--preset", "lowpass", "--format", fmt)
        one_line(r.stderr, "INPUT", "3 samples", "not finite", "frame 1000 of channel 1",
                 "silence")
        y = read(d.p("y.wav"))[1]
        assert np.all(np.isfinite(y))
        tol = REL_L2 if fmt == "wav:float" else 1e-3    # 16 bits: quantisation
        assert rel_l2(y, conv(clean, h, "same")) < tol, fmt


@test("corruption")
def nonfinite_output_reported(d):
    # taps near the largest float overflow on any real signal
    d.wav("x.wav", np.ones(1000))
    d.text("huge.txt", "3e38 3e38")
    r = d.run("x.wav", "y.wav", "--taps", "huge.txt", "--align", "causal", "--backend", "cpu",
              "--kernel", "direct")
    one_line(r.stderr, "999 output samples are not finite", "frame 1 of channel 0")
    y = read(d.p("y.wav"))[1]
    assert np.isfinite(y[0]) and np.all(np.isinf(y[1:]))
    r = d.run("x.wav", "y16.wav", "--taps", "huge.txt", "--align", "causal", "--backend", "cpu",
              "--kernel", "direct", "--format", "wav:pcm16")
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and any("999 output samples are not finite" in l for l in lines) \
        and any("1 samples clipped" in l for l in lines), lines


@test("corruption")
def short_data_chunk_warned(d):
    d.pcm16("x.wav", d.noise(10000))
    data = open(d.p("x.wav"), "rb").read()
    with open(d.p("cut.wav"), "wb") as f:
        f.write(data[:-4000])
    r = d.run("cut.wav", "y.wav", "--preset", "lowpass", "-q")
    one_line(r.stderr, "cut.wav", "cut short", "4000 bytes", "8000 frames")
    assert read(d.p("y.wav"))[1].shape == (8000,)
    r = d.run("x.wav", "y.wav", "--preset", "lowpass")
    assert r.stderr == ""


# ---- hostile names and values --------------------------------------------------

@test("hostile")
def response_plot_escapes_names(d):
    d.text("evil.ini", "[<script>alert(1)</script>]\ntype = lowpass\ncutoff_hz = 1000\n"
           "transition_hz = 400\n\n[b&'\"]\ntype = highpass\ncutoff_hz = 100\n"
           "transition_hz = 50\n")
    d.run("--response", "p.svg", "--preset", "evil.ini")
    root = ET.parse(d.p("p.svg")).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert not list(root.iter(ns + "script")) and not list(root.iter("script"))
    title = [t.text for t in root.iter(ns + "text") if t.text and "taps at" in t.text]
    assert title and "<script>alert(1)</script>" in title[0] and "b&'\"" in title[0], title


@test("hostile")
def preset_override_values_with_slashes(d):
    x = d.noise(1000)
    d.wav("x.wav", x)
    x = read(d.p("x.wav"))[1]
    os.makedirs(d.p("taps"))
    os.makedirs(d.p("my:dir"))
    d.text("taps/one.txt", "1")
    d.text("taps/half.txt", "0.5")
    d.text("chain.ini", "[stage]\ntype = taps\nfile = taps/one.txt\n")
    d.text("my:dir/chain.ini", "[stage]\ntype = taps\nfile = ../taps/one.txt\n")
    for spec in ("chain.ini:stage.file=" + d.p("taps/half.txt"),
                 d.p("chain.ini") + ":file=taps/half.txt",
                 "my:dir/chain.ini:file=../taps/half.txt"):
        d.run("x.wav", "y.wav", "--preset", spec)
        assert rel_l2(read(d.p("y.wav"))[1], 0.5 * x) < REL_L2, spec
    d.run("x.wav", "y.wav", "--preset", "my:dir/chain.ini")
    assert rel_l2(read(d.p("y.wav"))[1], x) < REL_L2


@test("hostile")
def overflowing_gain_says_so(d):
    d.wav("x.wav", d.noise(100))
    line = fails(d, ["x.wav", "out.wav", "--preset", "lowpass", "--gain", "1e9"], 1, "--gain",
                 "overflow")
    assert "not finite" not in line
    d.text("big.txt", "3e38 3e38")
    fails(d, ["x.wav", "out.wav", "--taps", "big.txt", "--taps", "big.txt"], 1, "overflow",
          "fold")


if __name__ == "__main__":
    sys.exit(test_cli.main())
