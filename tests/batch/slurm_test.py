#!/usr/bin/python3
"""gfir batch as the worker of a real Slurm job array.

    slurm_test.py GFIR

Starts a private single-node cluster from Debian's slurm-wlm and munge
(munged, slurmctld and slurmd, all configured in a temporary directory, on
private ports), submits an array of 4 shards over a manifest of 300 short
files reverberated with rooms chosen by seed, kills one array task with
SIGKILL in the middle of writing an output, requeues it, and checks that
every output exists exactly once and matches NumPy, and that the receipts
cover the manifest exactly once. Every daemon is stopped by its PID file at
the end, whatever happened.

Exit 77 (skipped) only when the cluster cannot be brought up here: not root,
or a daemon that does not start or a node that never comes up (a sandbox
that forbids what slurmd does). Anything after that is a pass or a failure.
"""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

try:
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from batchlib import (check_output, read_receipts, room, temporaries, write_manifest,
                          write_wav)
except ImportError:
    print("slurm_test: needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    sys.exit(77)

SKIP = 77
SHARDS = 4
JOBS = 300
DEADLINE_S = 100
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scontrol", "scancel", "sinfo")


class Skip(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """Daemons run in the foreground as our children and get SIGTERM if we
    are killed outright (a ctest timeout), so none outlives the test."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Cluster:
    def __init__(self, root):
        self.root = root
        self.procs = {}
        self.env = dict(os.environ, SLURM_CONF=os.path.join(root, "slurm.conf"))

    def p(self, *names):
        return os.path.join(self.root, *names)

    def configure(self):
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(self.p(d))
        # munged refuses a socket directory that others cannot enter
        os.chmod(self.root, 0o755)
        os.chmod(self.p("munge"), 0o755)
        with open(self.p("munge", "key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.p("munge", "key"), 0o400)
        host = socket.gethostname().split(".")[0]
        conf = f"""\
ClusterName=gfirtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.p("munge", "socket")},cred_expire=5
StateSaveLocation={self.p("state")}
SlurmdSpoolDir={self.p("spool")}
SlurmctldPidFile={self.p("slurmctld.pid")}
SlurmdPidFile={self.p("slurmd.pid")}
SlurmctldLogFile={self.p("log", "slurmctld.log")}
SlurmdLogFile={self.p("log", "slurmd.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.p("slurm.conf"), "w") as f:
            f.write(conf)
        open(self.p("cgroup.conf"), "w").close()

    def start(self, name, args, pid_file):
        log = open(self.p("log", f"{name}.out"), "w")
        self.procs[name] = (subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                             env=self.env, preexec_fn=die_with_parent),
                            pid_file)
        deadline = time.monotonic() + 15
        while not os.path.exists(pid_file):
            if self.procs[name][0].poll() is not None or time.monotonic() > deadline:
                raise Skip(f"{name} did not start here: {self.tail(name)}")
            time.sleep(0.05)

    def tail(self, name):
        text = ""
        for path in (self.p("log", f"{name}.out"), self.p("log", f"{name}.log"),
                     self.p("munge", "munged.log")):
            if os.path.exists(path) and (name in path):
                text += "".join(open(path, errors="replace").readlines()[-5:])
        return text.strip() or "(no log)"

    def up(self):
        self.configure()
        m = self.p("munge")
        self.start("munged", ["munged", "--foreground", f"--key-file={m}/key",
                              f"--socket={m}/socket", f"--pid-file={m}/munged.pid",
                              f"--log-file={m}/munged.log", f"--seed-file={m}/seed"],
                   self.p("munge", "munged.pid"))
        conf = self.p("slurm.conf")
        self.start("slurmctld", ["slurmctld", "-D", "-i", "-f", conf], self.p("slurmctld.pid"))
        self.start("slurmd", ["slurmd", "-D", "-f", conf], self.p("slurmd.pid"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            r = self.cmd("sinfo", "-h", "-o", "%T", check=False)
            if r.stdout.strip() == "idle":
                return
            time.sleep(0.2)
        raise Skip(f"the node never came up: {self.tail('slurmd')}")

    def cmd(self, *args, check=True):
        r = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=30)
        if check and r.returncode:
            raise AssertionError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return r

    def state(self, job):
        r = self.cmd("scontrol", "-o", "show", "job", job, check=False)
        for word in r.stdout.split():
            if word.startswith("JobState="):
                return word.split("=", 1)[1]
        return "UNKNOWN"

    def down(self):
        """Every job cancelled, then every daemon stopped by its PID file."""
        if "slurmctld" in self.procs:
            self.cmd("scancel", "--full", "--signal=KILL", "--user=root", check=False)
        for name in reversed(DAEMONS):
            if name not in self.procs:
                continue
            proc, pid_file = self.procs[name]
            try:
                os.kill(int(open(pid_file).read().split()[0]), signal.SIGTERM)
            except (OSError, ValueError, IndexError):
                proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def make_corpus(d, rng):
    """300 half-second files, 20 rooms chosen by seed, and one long job whose
    input is a FIFO the test feeds: it holds its shard in the middle of
    writing an output for as long as the test wants."""
    rows = []
    for i in range(JOBS):
        write_wav(os.path.join(d, f"in/u{i:03d}.wav"), rng.standard_normal(8000) * 0.1)
        rows.append(dict(id=f"utt{i:03d}", input=f"in/u{i:03d}.wav", output=f"out/u{i:03d}.wav",
                         ir="rooms", seed=7))
    for k in range(20):
        write_wav(os.path.join(d, f"rooms/r{k:02d}.wav"), room(rng, 1600))
    # job 302 is shard 2's; its filter sorts after the rooms', so it runs last there
    for i in (300, 301):
        write_wav(os.path.join(d, f"in/u{i:03d}.wav"), rng.standard_normal(8000) * 0.1)
        rows.append(dict(id=f"utt{i:03d}", input=f"in/u{i:03d}.wav", output=f"out/u{i:03d}.wav",
                         ir="rooms", seed=7))
    write_wav(os.path.join(d, "zz/room.wav"), room(rng, 1600))
    rows.append(dict(id="long", input="in/long.wav", output="out/long.wav", ir="zz/room.wav"))
    write_manifest(os.path.join(d, "jobs.tsv"), rows)
    long_signal = rng.standard_normal(16000 * 40) * 0.1
    write_wav(os.path.join(d, "long-whole.wav"), long_signal)
    os.mkfifo(os.path.join(d, "in/long.wav"))
    return rows


def feed_half(d, release):
    """Writes the long input's header and first half into the FIFO, then
    holds it open until released."""
    with open(os.path.join(d, "long-whole.wav"), "rb") as src:
        data = src.read()
    with open(os.path.join(d, "in/long.wav"), "wb") as fifo:
        try:
            fifo.write(data[:len(data) // 2])
            fifo.flush()
            release.wait(DEADLINE_S)
        except BrokenPipeError:
            pass


def kill_task(job, task):
    """SIGKILL to every process of one array task at once (its script and
    gfir), as when its node dies: nothing gets to clean up. Slurm's own
    cancel would send SIGTERM first, which gfir handles."""
    want = {f"SLURM_ARRAY_JOB_ID={job}".encode(), f"SLURM_ARRAY_TASK_ID={task}".encode()}
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if want <= set(f.read().split(b"\0")):
                    pids.append(int(pid))
        except OSError:
            pass
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def wait_for(what, cond, deadline):
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def run(gfir, work, cluster):
    deadline = time.monotonic() + DEADLINE_S
    rng = np.random.default_rng(16)
    rows = make_corpus(work, rng)
    release = threading.Event()
    feeder = threading.Thread(target=feed_half, args=(work, release), daemon=True)
    feeder.start()
    script = os.path.join(work, "shard.sh")
    with open(script, "w") as f:
        f.write(f"""#!/bin/bash
#SBATCH --array=0-{SHARDS - 1}
#SBATCH --cpus-per-task=1
#SBATCH --output={work}/log/%A_%a.txt
#SBATCH --open-mode=append
cd {work}
{gfir} batch --manifest jobs.tsv --receipts receipts --jobs 1
echo $? > status/$SLURM_ARRAY_TASK_ID.${{SLURM_RESTART_COUNT:-0}}
""")
    os.makedirs(os.path.join(work, "log"))
    os.makedirs(os.path.join(work, "status"))
    env_job = cluster.env
    r = subprocess.run(["sbatch", "--parsable", script], cwd=work, capture_output=True,
                       text=True, env=dict(env_job, GFIR_FFTW_PLANNER="estimate", HOME=work))
    assert r.returncode == 0, f"sbatch: {r.stderr}"
    job = r.stdout.strip().split(";")[0]
    task2 = f"{job}_2"

    # shard 2 has done its short jobs and is writing the long one's output
    shard2 = os.path.join(work, "receipts", f"shard-2-of-{SHARDS}.jsonl")
    short2 = len([i for i in range(len(rows)) if i % SHARDS == 2]) - 1
    wait_for("shard 2's short jobs", lambda: os.path.exists(shard2) and
             len(open(shard2).readlines()) == short2, deadline)
    tmp = lambda: [t for t in temporaries(os.path.join(work, "out")) if "long.wav" in t]
    wait_for("the long output's temporary file", lambda: tmp() and os.path.getsize(tmp()[0]) > 0,
             deadline)
    killed = kill_task(job, 2)
    assert killed, "no process of task 2 found to kill"
    wait_for("task 2 to die", lambda: cluster.state(task2) not in ("RUNNING", "COMPLETING"),
             deadline)
    assert cluster.state(task2) == "FAILED", cluster.state(task2)
    release.set()
    feeder.join(10)
    assert not os.path.exists(os.path.join(work, "out/long.wav")), "half an output under its name"
    assert tmp(), "the kill left no unfinished output: it came too late to test anything"
    # a minute later, as a real requeue comes: the sweep leaves younger
    # temporary files alone (their writer may not have locked them yet)
    old = time.time() - 120
    for t in tmp():
        os.utime(t, (old, old))

    # the whole input in place of the FIFO, and the task again with the same index
    os.remove(os.path.join(work, "in/long.wav"))
    shutil.copy(os.path.join(work, "long-whole.wav"), os.path.join(work, "in/long.wav"))
    cluster.cmd("scontrol", "requeue", task2)
    wait_for("the array to finish", lambda: all(
        cluster.state(f"{job}_{k}") in ("COMPLETED", "FAILED", "CANCELLED")
        for k in range(SHARDS)) and cluster.state(task2) == "COMPLETED", deadline)

    statuses = sorted(os.listdir(os.path.join(work, "status")))
    assert statuses == ["0.0", "1.0", "2.1", "3.0"], statuses
    for s in statuses:
        assert open(os.path.join(work, "status", s)).read().strip() == "0", \
            f"task {s}: " + "".join(open(p).read() for p in
                                    [os.path.join(work, "log", x)
                                     for x in os.listdir(os.path.join(work, "log"))])

    receipts = read_receipts(os.path.join(work, "receipts"))
    outputs = [r["output"] for r in receipts]
    assert sorted(outputs) == sorted(r["output"] for r in rows), "receipts: not once each"
    by_output = {r["output"]: r for r in receipts}
    for row in rows:
        if row["id"] == "long":
            row = dict(row, input="long-whole.wav")
        check_output(row, by_output[row["output"]], base=work)
    on_disk = sorted(os.listdir(os.path.join(work, "out")))
    assert on_disk == sorted(os.path.basename(r["output"]) for r in rows), \
        f"out/ holds {set(on_disk) - set(os.path.basename(r['output']) for r in rows)}"
    r = subprocess.run([gfir, "batch", "--manifest", "jobs.tsv", "--receipts", "receipts",
                        "--merge", "all.jsonl"], cwd=work, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    merged = [json.loads(l) for l in open(os.path.join(work, "all.jsonl"))]
    assert [m["line"] for m in merged] == list(range(2, len(rows) + 2))
    print(f"ok: {len(rows)} jobs in {SHARDS} shards, task 2 killed and requeued; "
          f"{len(set(os.path.basename(m['filter'].split()[1]) for m in merged))} rooms used")


def main():
    if len(sys.argv) != 2:
        print("usage: slurm_test.py GFIR")
        return 2
    gfir = os.path.abspath(sys.argv[1])
    missing = [t for t in DAEMONS + CLIENTS if not shutil.which(t)]
    if missing:
        print(f"slurm_test: {', '.join(missing)} missing: install slurm-wlm and munge "
              "(tools/setup.sh does)")
        return 1
    if os.geteuid() != 0:
        print("slurm_test: SKIPPED: slurmd runs jobs as their users and must run as root")
        return SKIP
    root = tempfile.mkdtemp(prefix="gfir-slurm-")
    os.chmod(root, 0o755)   # munged's socket must be reachable through it
    work = os.path.join(root, "work")
    os.makedirs(work)
    cluster = Cluster(os.path.join(root, "cluster"))
    os.makedirs(cluster.root)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        try:
            cluster.up()
        except Skip as e:
            print(f"slurm_test: SKIPPED: Slurm cannot run here: {e}")
            return SKIP
        run(gfir, work, cluster)
        return 0
    except AssertionError as e:
        print(f"FAIL: {e}")
        for name in ("slurmctld", "slurmd"):
            print(f"--- {name}: {cluster.tail(name)}")
        print("--- jobs: " + cluster.cmd("scontrol", "-o", "show", "job", check=False).stdout)
        return 1
    finally:
        cluster.down()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
