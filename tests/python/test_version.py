"""One version for the project: CMakeLists.txt's project(VERSION) is the
package's (gfir/_version.py, which pyproject.toml reads), the library's
and the command's. tests/python/test_install.py checks that what pip
installs says so too."""
import os
import re
import subprocess

import gfir

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def project_version() -> str:
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        m = re.search(r"project\(gfir VERSION (\d+\.\d+\.\d+)", f.read())
    assert m, "no project(gfir VERSION x.y.z) in CMakeLists.txt"
    return m.group(1)


def test_package_library_and_command_say_the_project_version():
    version = project_version()
    assert gfir.__version__ == version
    assert gfir.library_version() == version
    out = subprocess.run([os.environ["GFIR_CLI"], "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[0] == f"gfir {version}"

