#!/usr/bin/env python3
"""module_graph.py - the library's object files as a graph of who uses whose
symbols (nm), and its cycles.

    tools/ci/module_graph.py BUILD_DIR [--edges]

Prints each cycle among the object files (strongly connected components of
more than one file) and exits 1 when there is one; --edges prints every edge
too. An edge a -> b means a.o references a symbol b.o defines; calls through
a function pointer (an engine's table) are not edges, which is the point of
the tables.
"""
import collections
import os
import subprocess
import sys


def objects(build):
    root = os.path.join(build, "CMakeFiles", "gfir_objects.dir")
    for base, _, files in os.walk(root):
        for f in files:
            if f.endswith(".o"):
                yield os.path.join(base, f)


def name_of(path, build):
    rel = os.path.relpath(path, os.path.join(build, "CMakeFiles", "gfir_objects.dir"))
    return rel[:-len(".c.o")] if rel.endswith(".c.o") else rel[:-len(".o")]


def symbols(path):
    out = subprocess.run(["nm", "-P", path], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            used.add(sym)
        elif kind in "TDBRVWC":
            defined.add(sym)
    return defined, used


def cycles(graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = sys.argv[1]
    owner, uses = {}, {}
    for path in objects(build):
        name = name_of(path, build)
        defined, used = symbols(path)
        for s in defined:
            owner[s] = name
        uses[name] = used
    graph = collections.defaultdict(set)
    for name, used in uses.items():
        graph[name]
        for s in used:
            if s in owner and owner[s] != name:
                graph[name].add(owner[s])
    if "--edges" in sys.argv:
        for a in sorted(graph):
            for b in sorted(graph[a]):
                print(f"{a} -> {b}")
    found = cycles(graph)
    for comp in found:
        print("cycle: " + " <-> ".join(comp))
    print(f"{len(graph)} object files, {sum(len(v) for v in graph.values())} edges, "
          f"{len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
