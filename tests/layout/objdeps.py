#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Dependencies between object files, and their cycles.

    python3 tests/layout/objdeps.py OBJ...

OBJ is an object (.o), a libtool object (.lo: its PIC object), an archive
(.a: each member) or a libtool library (.la: its archive). Object X
depends on object Y when X has an undefined symbol Y defines. Prints
each edge with the symbols behind it, then each cycle; exits 1 when
there is one. t_layout.py uses it for every program of the tree.
"""

import os
import re
import subprocess
import sys

# nm's types of a defined global symbol (lowercase: local, but for u
# and i, GNU unique and indirect functions); U, v and w are references.
DEFINED = set("ABCDGRSTVWiu")
UNDEFINED = set("Uvw")


def _libtool_var(path, name):
    with open(path) as f:
        m = re.search(r"^%s='(.*)'$" % name, f.read(), re.M)
    return m.group(1) if m else ""


def resolve(paths):
    """The object files and archives behind PATHS (.o, .lo, .a, .la)."""
    out = []
    for p in paths:
        d = os.path.dirname(p)
        if p.endswith(".lo"):
            out.append(os.path.join(d, _libtool_var(p, "pic_object")))
        elif p.endswith(".la"):
            # A convenience library's archive; a shared one has none.
            lib = _libtool_var(p, "old_library")
            if lib:
                out.append(os.path.join(d, ".libs", lib))
            deps = _libtool_var(p, "dependency_libs").split()
            out += resolve([x for x in deps if x.endswith(".la")])
        else:
            out.append(p)
    return out


def libflags(paths):
    """The -l flags among PATHS and in their .la files' dependency_libs."""
    out = []
    for p in paths:
        if p.startswith("-l"):
            out.append(p)
        elif p.endswith(".la"):
            out += libflags(_libtool_var(p, "dependency_libs").split())
    return out


def symbols(files):
    """{object: (defined globals, undefined)}; an archive's members are
    objects of their own, named archive(member), the first of a name
    wins (libtool copies one convenience library into another)."""
    # Without -A, nm heads each object (each archive member) with a line
    # of its own, so two members of one name (ar keeps both: x.c of two
    # folders) stay two objects; the second of a name in an archive is
    # named archive(member#2).
    res = subprocess.run(["nm", "-P"] + files, check=True,
                         capture_output=True, text=True).stdout
    objs = {}
    seen = {}
    count = {}
    obj = key = files[0] if len(files) == 1 else None
    for line in res.splitlines():
        h = re.match(r"^(\S*?)(?:\[(.*)\])?:$", line)
        if h:
            path, member = h.groups()
            if not member:
                obj = key = path
                continue
            nth = count[(path, member)] = count.get((path, member), 0) + 1
            obj = "%s(%s)" % (path, member) if nth == 1 else "%s(%s#%d)" % (path, member, nth)
            key = "%s#%d" % (member, nth)
            continue
        m = re.match(r"^(\S+) (\S)", line)
        if not m or obj is None:
            continue
        name, kind = m.groups()
        if seen.setdefault(key, obj) != obj:
            continue
        defs, refs = objs.setdefault(obj, (set(), set()))
        if kind in DEFINED:
            defs.add(name)
        elif kind in UNDEFINED:
            refs.add(name)
    return objs


def edges(objs):
    """{(X, Y): sorted symbols}: X refers to what Y defines."""
    definer = {}
    for obj, (defs, _) in objs.items():
        for s in defs:
            definer.setdefault(s, obj)
    out = {}
    for obj, (_, refs) in objs.items():
        for s in refs:
            y = definer.get(s)
            if y and y != obj:
                out.setdefault((obj, y), []).append(s)
    return {k: sorted(v) for k, v in out.items()}


def cycles(objs, deps):
    """Per strongly connected component of more than one object (Tarjan):
    one cycle through it (a list, first = last) and its objects."""
    succ = {o: [] for o in objs}
    for x, y in deps:
        succ[x].append(y)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
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
                comps.append(set(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(objs):
        if v not in index:
            visit(v)
    return [(_path_back(min(c), c, succ), sorted(c)) for c in comps]


def _path_back(start, comp, succ):
    """A shortest path from START back to itself inside COMP (BFS)."""
    prev = {}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in succ[v]:
            if w not in comp:
                continue
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def describe(cycle, deps):
    """a -> b (sym) -> a, with one symbol per step."""
    out = [cycle[0]]
    for x, y in zip(cycle, cycle[1:]):
        out.append("-> %s (%s)" % (y, deps[(x, y)][0]))
    return " ".join(out)


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    objs = symbols(resolve(argv))
    deps = edges(objs)
    for (x, y), syms in sorted(deps.items()):
        print("%s -> %s: %s" % (x, y, " ".join(syms)))
    found = cycles(objs, deps)
    for cycle, comp in found:
        print("cycle: " + describe(cycle, deps))
        if len(comp) > len(cycle) - 1:
            print("  all %d objects of that knot: %s" % (len(comp), " ".join(comp)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
