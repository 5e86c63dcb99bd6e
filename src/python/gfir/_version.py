"""The package's version: the project's, CMakeLists.txt's project(VERSION),
which the library (gfir.h's GFIR_VERSION_*) and the gfir command report
too. pyproject.toml reads it from here; tests/python/test_version.py holds
it equal to CMakeLists.txt and to the libgfir built beside it, as
tests/core/error_test.c holds gfir.h's macros, so a release changes the
three places or fails its tests."""
__version__ = "0.2.0"
