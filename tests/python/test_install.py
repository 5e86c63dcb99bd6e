"""The package as tools/install.sh installs it (the set-up's last step):
into a scratch prefix, imported from there with nothing pointing at the
build tree, it finds the libgfir installed beside it."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def test_installed_package_finds_its_library(tmp_path):
    build = os.path.dirname(os.environ["GFIR_LIBRARY"])
    prefix = tmp_path / "prefix"
    env = dict(os.environ, GFIR_PREFIX=str(prefix), GFIR_PYTHON=sys.executable)
    r = subprocess.run(["bash", os.path.join(SOURCE, "tools", "install.sh"), build],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    site = next(prefix.glob("lib/python3*/site-packages"))
    assert f"installed the Python package gfir into {site}" in r.stderr, r.stderr
    clean = {k: v for k, v in os.environ.items()
             if k not in ("GFIR_LIBRARY", "GFIR_CLI", "PYTHONPATH")}
    code = ("import gfir, importlib.metadata as m; print(gfir.library_path); "
            "print(gfir.convolve([1.0, 2.0, 3.0], [1.0, -1.0]).tolist()); "
            "print(gfir.__version__, m.version('gfir'), gfir.library_version())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=dict(clean, PYTHONPATH=str(site)))
    assert r.returncode == 0, r.stderr
    lib, result, versions = r.stdout.splitlines()
    assert lib == str(prefix / "lib" / "libgfir.so.0.2")
    assert result == "[1.0, 1.0, 1.0, -3.0]"
    # pip's record of the package (from pyproject.toml) is the package's and the library's
    package, installed, library = versions.split()
    assert package == installed == library
    # no build products left in the source tree by pip
    assert not os.path.exists(os.path.join(SOURCE, "src", "python", "build"))
