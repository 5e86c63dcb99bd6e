#!/usr/bin/python3
"""gfir as the set-up installs it: tools/install.sh (the step tools/setup.sh
ends with) into a scratch prefix, then the command, `man gfir` and bash
completion found there the way a shell finds them; the manual page and the
completion script checked against `gfir --help`, so neither can fall behind
the options.

    test_install.py GFIR install

GFIR is the built build/gfir; its directory is the build directory.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli as cli  # noqa: E402  (the harness: exits 77 without NumPy)
from test_cli import GFIR, np, test  # noqa: E402

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAN_PAGE = os.path.join(SOURCE, "docs", "gfir.1")
COMPLETION = os.path.join(SOURCE, "tools", "completion", "gfir.bash")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"


def help_text(*command):
    return subprocess.run([GFIR, *command, "--help"], capture_output=True, text=True,
                          check=True).stdout


def help_options(text):
    """The options --help defines: '  -p, --preset ...' and '      --describe'."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r"^  (?:(-[a-z]), )?(--[a-z][a-z-]*)", line) or \
            re.match(r"^      (--[a-z][a-z-]*)", line)
        if m:
            opts.update(g for g in m.groups() if g)
    return opts


def batch_help_options(text):
    """The options `gfir batch --help` names: those of its usage line and
    every one on the lines that begin with options ('  -p, --preset, -t, ...')."""
    lines = text.splitlines()
    opts = set(re.findall(r"--[a-z][a-z-]*", lines[0]))
    for line in lines[1:]:
        if re.match(r"^ +-", line):
            opts.update(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", line))
    return opts


def man_options(batch=False):
    """The options the manual page defines: the first line of each .TP item,
    in the BATCH section (batch) or outside it."""
    lines = open(MAN_PAGE).read().splitlines()
    opts, section = set(), ""
    for i, line in enumerate(lines[:-1]):
        if line.startswith(".SH "):
            section = line[4:].strip()
        if line.strip() == ".TP" and (section == "BATCH") == batch:
            head = lines[i + 1].replace("\\-", "-")
            opts.update(re.findall(r"\\fB(--?[a-z][a-z-]*)\\f", head))
    return opts


def help_choices(text, after):
    """The words listed after `after` in --help, up to the next '(' or '.'."""
    start = text.index(after) + len(after)
    chunk = " ".join(re.split(r"[(.]", text[start:])[0].split())
    return set(re.findall(r"[a-z][a-z0-9]*", chunk))


@test("install")
def man_page_matches_help(d):
    helped, documented = help_options(help_text()), man_options()
    assert helped, "no options parsed from --help"
    assert helped == documented, (f"only in --help: {sorted(helped - documented)}; "
                                  f"only in gfir.1: {sorted(documented - helped)}")
    helped, documented = batch_help_options(help_text("batch")), man_options(batch=True)
    assert helped == documented, (f"only in gfir batch --help: {sorted(helped - documented)}; "
                                  f"only in gfir.1's BATCH: {sorted(documented - helped)}")
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", MAN_PAGE], capture_output=True,
                       text=True)
    assert r.returncode == 0 and r.stderr == "", f"groff: {r.stderr}"


def completion_words(name):
    text = open(COMPLETION).read()
    return set(re.search(name + r'="([^"]*)"', text, re.S).group(1).split())


@test("install")
def completion_matches_help(d):
    text = help_text()
    longs = {o for o in help_options(text) if o.startswith("--")}
    assert completion_words("_gfir_options") == longs, \
        f"completion options differ from --help: {completion_words('_gfir_options') ^ longs}"
    kernels = help_choices(text, "-k, --kernel NAME") - {"cuda", "default", "auto"} | {"auto"}
    assert completion_words("_gfir_kernels") == kernels, (completion_words("_gfir_kernels"),
                                                         kernels)
    samples = help_choices(text, "SAMPLES\n                       is")
    assert completion_words("_gfir_samples") == samples, (completion_words("_gfir_samples"),
                                                         samples)
    # every container offered is one gfir writes
    d.wav("x.wav", np.full((480, 2), 0.1))
    d.text("one.txt", "1")
    for ext in completion_words("_gfir_containers"):
        d.run("x.wav", "out." + ext, "--taps", "one.txt", "-q")


def complete(prefix, env, *words):
    """What bash-completion, loading gfir's completion on demand from the
    prefix as it does in an interactive shell, offers for the words."""
    script = f"""
source {BASH_COMPLETION}
__load_completion gfir || {{ echo "no completion for gfir" >&2; exit 1; }}
COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
$(complete -p gfir | sed 's/.*-F \\([^ ]*\\) .*/\\1/') gfir "${{COMP_WORDS[COMP_CWORD]}}" \
    "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    full_env = dict(os.environ, XDG_DATA_DIRS=os.path.join(prefix, "share"),
                    PATH=os.path.join(prefix, "bin") + ":" + os.environ["PATH"], **env)
    full_env.pop("BASH_COMPLETION_USER_DIR", None)
    full_env["XDG_DATA_HOME"] = os.path.join(prefix, "nothing-here")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=full_env,
                       cwd=prefix)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@test("install")
def installed_by_the_setup_step(d):
    prefix = tempfile.mkdtemp(prefix="gfir-prefix-", dir=d.path)
    env = dict(os.environ, GFIR_PREFIX=prefix)
    r = subprocess.run(["bash", os.path.join(SOURCE, "tools", "install.sh"),
                        os.path.dirname(GFIR)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert f"installed {prefix}/bin/gfir" in r.stderr, r.stderr
    # setup.sh ends with this step: the README's Quick start installs gfir
    setup = open(os.path.join(SOURCE, "tools", "setup.sh")).read()
    assert re.search(r'^bash tools/install\.sh "\$build"$', setup, re.M), \
        "tools/setup.sh no longer runs tools/install.sh"
    # on PATH, the same program as the build's
    shell_env = dict(os.environ, PATH=f"{prefix}/bin:" + os.environ["PATH"])
    found = subprocess.run(["bash", "-c", "command -v gfir"], capture_output=True, text=True,
                           env=shell_env).stdout.strip()
    assert found == f"{prefix}/bin/gfir", found
    version = subprocess.run(["gfir", "--version"], capture_output=True, text=True,
                             env=shell_env, check=True).stdout
    assert version == subprocess.run([GFIR, "--version"], capture_output=True, text=True,
                                     check=True).stdout
    # man finds the page from PATH alone (man-db maps .../bin to .../share/man)
    man_env = dict(shell_env)
    man_env.pop("MANPATH", None)
    where = subprocess.run(["man", "-w", "gfir"], capture_output=True, text=True, env=man_env)
    assert where.stdout.strip() == f"{prefix}/share/man/man1/gfir.1", (where.stdout,
                                                                         where.stderr)
    page = subprocess.run(["man", "-P", "cat", "gfir"], capture_output=True, text=True,
                          env=dict(man_env, MANWIDTH="80")).stdout
    assert "--list-presets" in page and "EXIT STATUS" in page, page[:200]
    # bash-completion loads the installed script on demand
    assert complete(prefix, {}, "gfir", "--pre") == ["--preset"]
    assert complete(prefix, {}, "gfir", "--kernel", "") == \
        "auto gold direct fft basic constant tiled cached".split()
    assert complete(prefix, {}, "gfir", "-b", "c") == ["cpu", "cuda"]
    assert complete(prefix, {}, "gfir", "--align", "") == ["same", "causal", "full"]
    # presets come from the gfir being completed: the user's own included
    os.makedirs(os.path.join(prefix, "mine"))
    with open(os.path.join(prefix, "mine", "mybrightness.ini"), "w") as f:
        f.write("[b]\ntype = highpass\ncutoff_hz = 100\ntransition_hz = 50\n")
    offered = complete(prefix, {"GFIR_PRESET_PATH": os.path.join(prefix, "mine")},
                       "gfir", "--preset", "")
    assert {"lowpass", "telephone", "hall", "mybrightness"} <= set(offered), offered
    assert complete(prefix, {}, "gfir", "--preset", "tele") == ["telephone"]
    # --format CONTAINER:SAMPLES, with ':' splitting words as bash does
    assert "mp3" in complete(prefix, {}, "gfir", "--format", "")
    assert complete(prefix, {}, "gfir", "--format", "wav", ":", "pcm2") == ["pcm24"]


if __name__ == "__main__":
    sys.exit(cli.main())
