"""gfir/_lib.py, the C header spelled in ctypes, against include/gfir.h and
the built library: statuses, enums, limits, structs, prototypes and the
soname. Each is parsed from the header (or read from the library's ELF
header), so a change there that the package does not follow fails here.
And a status the package does not know still raises, with the library's
sentence."""
import ctypes
import os
import re
import subprocess

import pytest

import gfir
from gfir import _lib

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(SOURCE, "include", "gfir.h")


def header() -> str:
    """gfir.h without its comments."""
    with open(HEADER) as f:
        text = f.read()
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def enum(name: str) -> dict:
    """{NAME: value} of `typedef enum name { ... }`."""
    body = re.search(r"typedef enum %s \{(.*?)\}" % name, header(), re.S)
    assert body, f"no enum {name} in gfir.h"
    return {k: int(v) for k, v in re.findall(r"(\w+)\s*=\s*(-?\d+)", body.group(1))}


def macro(name: str) -> int:
    """The value of an integer macro: a number, ((size_t)1 << n) or ((size_t)-1)."""
    m = re.search(r"#define %s (.+)" % name, header())
    assert m, f"no {name} in gfir.h"
    expr = m.group(1).strip()
    if expr == "((size_t)-1)":
        return ctypes.c_size_t(-1).value
    shift = re.fullmatch(r"\(\(size_t\)(\d+) << (\d+)\)", expr)
    if shift:
        return int(shift.group(1)) << int(shift.group(2))
    return int(expr)


def test_statuses_match_the_header():
    statuses = enum("gfir_status")
    assert statuses.pop("GFIR_OK") == _lib.OK == 0
    ours = {f"GFIR_{k}": v for k, v in vars(_lib).items() if k.startswith("ERR_")}
    assert ours == statuses
    assert _lib._STATUS_NAMES == {v: k for k, v in statuses.items()}
    assert set(_lib._ERROR_CLASSES) <= set(statuses.values())


def test_enums_match_the_header():
    def lower(values: dict, prefix: str) -> dict:
        return {k[len(prefix):].lower(): v for k, v in values.items()}
    assert _lib.BACKENDS == lower(enum("gfir_backend"), "GFIR_BACKEND_")
    assert _lib.KERNELS == lower(enum("gfir_kernel"), "GFIR_KERNEL_")
    assert _lib.FILTER_TYPES == lower(enum("gfir_filter_type"), "GFIR_")
    # and the library's own names for them (its functions on a handle of
    # their own: the package does not declare these two)
    own = ctypes.CDLL(_lib.library_path)
    for fn, table in ((own.gfir_backend_name, _lib.BACKENDS),
                      (own.gfir_kernel_name, _lib.KERNELS)):
        fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_int]
        assert {fn(v).decode(): v for v in table.values()} == table


def test_limits_match_the_header():
    # every GFIR_MAX_* the header defines, so that a new limit is seen here
    limits = re.findall(r"#define GFIR_(MAX_\w+) ", header())
    assert "MAX_CHANNELS" in limits and "MAX_TAPS" in limits
    for name in limits:
        assert getattr(_lib, name, None) == macro(f"GFIR_{name}"), name
    assert _lib.LATENCY_ANY == macro("GFIR_LATENCY_ANY")


# C types of gfir.h as ctypes spells them; every pointer is one kind here
_CTYPES = {"size_t": ctypes.c_size_t, "unsigned": ctypes.c_uint, "int": ctypes.c_int,
           "float": ctypes.c_float, "double": ctypes.c_double, "void": None}


def _kind(ctype: str) -> str:
    ctype = ctype.replace("const ", "").strip()
    if "*" in ctype:
        return "pointer"
    if ctype.startswith("gfir_") and ctype not in ("gfir_config", "gfir_path"):
        return ctypes.c_int.__name__  # the enums
    t = _CTYPES[ctype]
    return "void" if t is None else t.__name__


def _py_kind(t) -> str:
    if t is None:
        return "void"
    if t in (ctypes.c_void_p, ctypes.c_char_p) or hasattr(t, "_type_") and \
            isinstance(t._type_, type):
        return "pointer"
    return t.__name__


@pytest.mark.parametrize("struct,cls", [("gfir_config", _lib.Config), ("gfir_path", _lib.Path)])
def test_structs_match_the_header(struct, cls):
    body = re.search(r"typedef struct %s \{(.*?)\}" % struct, header(), re.S).group(1)
    fields = re.findall(r"([\w ]+?\**)\s*(\w+);", body)
    assert [n for _, n in fields] == [n for n, _ in cls._fields_]
    assert [_kind(t) for t, _ in fields] == [_py_kind(t) for _, t in cls._fields_]


def test_prototypes_match_the_header():
    protos = {}
    for ret, name, args in re.findall(r"GFIR_API ([\w ]+?\**)\s*(\w+)\((.*?)\);", header(),
                                      re.S):
        if name.startswith("gfir_"):
            args = [] if args.strip() == "void" else [a.strip() for a in args.split(",")]
            protos[name] = (_kind(ret), [_kind(re.sub(r"\w+$", "", a)) for a in args])
    declared = [n for n in protos if getattr(_lib.lib, n).argtypes is not None]
    assert len(declared) >= 25  # what the package calls, each spelled by _proto
    for name in declared:
        fn = getattr(_lib.lib, name)
        assert (_py_kind(fn.restype), [_py_kind(t) for t in fn.argtypes]) == protos[name], name


def test_soname_is_the_built_librarys():
    lib = os.path.realpath(os.environ["GFIR_LIBRARY"])
    out = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True,
                         check=True).stdout
    soname = re.search(r"\(SONAME\)\s+Library soname: \[(.+)\]", out).group(1)
    assert _lib.SONAME == soname


def test_a_status_the_package_does_not_know_still_raises():
    # a newer libgfir's status: GfirError itself, its number and the library's sentence
    unknown = min(enum("gfir_status").values()) - 1
    with pytest.raises(gfir.GfirError) as e:
        _lib.check(unknown, "gfir_plan_create")
    assert type(e.value) is gfir.GfirError
    assert e.value.status == unknown and e.value.name == f"status {unknown}"
    assert e.value.detail == _lib.strerror(unknown) != ""
    assert str(e.value) == f"gfir_plan_create: {e.value.detail} (status {unknown})"


def test_backend_devices():
    # the ordinals device= takes: the CPU is one host, CUDA as many GPUs as
    # are visible, none where it is not built or finds no device
    assert gfir.backend_devices("cpu") == 1
    n = gfir.backend_devices("cuda")
    assert (n > 0) == gfir.backend_available("cuda")
    for bad in ("auto", "tpu"):
        with pytest.raises(ValueError, match="backend must be"):
            gfir.backend_devices(bad)
