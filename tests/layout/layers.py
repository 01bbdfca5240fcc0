# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Which directory may use which: the layering table (and, inside a
layer such as atsd, the order of its folders: INNER), and the edges the
build really has, read from the Makefile.inc fragments (a target's
SOURCES, LDADD and LIBADD naming another directory's files) and from the
#include lines of the files each target compiles, resolved as the
compiler does (a quoted include: the including file's directory, then
the target's -I paths in order; the first file found is the header).
"""

import os
import re

# A directory's layer: its own path or the nearest parent listed.
LAYER_OF = {
    "lib/core": "core",
    "lib/host": "host",
    "lib/libibats": "libibats",
    "include": "libibats",      # <ibats/ibats.h>, libibats's public header
    "plugin": "plugin",
    "hostagent/atsd": "atsd",
    "hostagent/atsctl": "atsctl",
    "examples": "examples",
    "tests": "tests",
    # The simulated host (simhost/README.md): the bench's kernel.
    "simhost/wire": "simwire",
    "simhost/kernel": "simkernel",
    "simhost/daemon": "simdaemon",
    "simhost/preload": "simpreload",
    "simhost/tests": "tests",
}

# core <- host <- {libibats, atsd, atsctl}; core <- plugin; nothing uses
# plugin/ or hostagent/ but itself; atsctl and examples/ use libibats as
# any application does (its public header and library); tests/ anything.
ALLOWED = {
    "core": set(),
    "host": {"core"},
    "libibats": {"core", "host"},
    "atsd": {"core", "host"},
    "atsctl": {"core", "host", "libibats"},
    "plugin": {"core"},
    "examples": {"libibats"},
    "tests": None,
    # simhost: wire <- kernel <- daemon; wire <- preload. Each may use
    # lib/core's codecs (the wire is the same fabric's), never the product's
    # host half, plugin or agents.
    "simwire": {"core"},
    "simkernel": {"core", "simwire"},
    "simdaemon": {"core", "simwire", "simkernel"},
    "simpreload": {"core", "simwire"},
}

# A layer's own folders, bottom up: a file includes headers of its own
# folder and of those before it, never of one after it. "" is the
# layer's root (atsd.c, main, on top); a folder not listed is an error.
# atsd: model/ the pure cores and the state file, which every thread
# calls; sa/ the SA thread; main/ the main loop's inputs and outputs;
# state/ the main thread's state; ctl/ the control socket
# (hostagent/atsd/Makefile.inc, each folder's README.md).
INNER = {
    "atsd": ("hostagent/atsd", ["model", "sa", "main", "state", "ctl", ""]),
}

FRAGMENTS = ["Makefile.am", "lib/Makefile.inc", "plugin/Makefile.inc",
             "hostagent/atsd/Makefile.inc", "hostagent/atsctl/Makefile.inc",
             "examples/Makefile.inc", "simhost/Makefile.inc", "tests/Makefile.inc"]

_ASSIGN = re.compile(r"^([A-Za-z0-9_]+)\s*(\+?=)\s*(.*)$")
_VAR = re.compile(r"\$\(([A-Za-z0-9_]+)\)")
_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]')


def layer(path):
    """The layer of a path relative to the source tree, or None."""
    d = os.path.dirname(path) if os.path.splitext(path)[1] else path
    while d:
        if d in LAYER_OF:
            return LAYER_OF[d]
        d = os.path.dirname(d)
    return None


def inner(path):
    """(layer, its folder of path, that folder's rank) for a path of a
    layer with INNER folders, the rank None for a folder not listed;
    else None."""
    lay = layer(path)
    if lay not in INNER:
        return None
    root, order = INNER[lay]
    rel = os.path.relpath(os.path.dirname(path), root)
    sub = "" if rel == "." else rel.split(os.sep)[0]
    return lay, sub, order.index(sub) if sub in order else None


def inner_edge(f, h):
    """Why f including h breaks its layer's INNER order, or None."""
    a, b = inner(f), inner(h)
    if a is None or b is None or a[0] != b[0] or a[1] == b[1]:
        return None
    for lay, sub, rank in (a, b):
        if rank is None:
            return "%s/ is in no folder of %s's INNER order (tests/layout/layers.py)" % (
                os.path.join(INNER[lay][0], sub), lay)
    if b[2] > a[2]:
        return "%s %s/ -> %s/, upward" % (a[0], a[1] or ".", b[1] or ".")
    return None


def read_fragments(srcdir, texts=None):
    """name -> (value, fragment:line) of every variable; TEXTS (fragment
    -> text) replaces files, for the self-check."""
    env, where = {}, {}
    for frag in FRAGMENTS:
        if texts is not None and frag in texts:
            text = texts[frag]
        else:
            with open(os.path.join(srcdir, frag)) as f:
                text = f.read()
        n = 0
        logical, start = "", 0
        for raw in text.split("\n"):
            n += 1
            if not logical:
                start = n
            if raw.endswith("\\"):
                logical += raw[:-1] + " "
                continue
            line, logical = logical + raw, ""
            m = _ASSIGN.match(line.split("#", 1)[0].rstrip())
            if not m:
                continue
            name, op, value = m.groups()
            env[name] = (env.get(name, "") + " " + value) if op == "+=" else value
            where.setdefault(name, "%s:%d" % (frag, start))
    return env, where


def expand(env, value, depth=0):
    if depth > 20:
        return value
    value = value.replace("$(top_srcdir)/", "").replace("$(srcdir)/", "")
    return _VAR.sub(lambda m: expand(env, env.get(m.group(1), ""), depth + 1), value)


def targets(env):
    """Each built target: (canonical name, its path)."""
    out = []
    for name, value in env.items():
        if name.endswith(("_PROGRAMS", "_LTLIBRARIES", "_LIBRARIES")):
            for t in expand(env, value).split():
                out.append((re.sub(r"[^A-Za-z0-9_]", "_", t), t))
    return sorted(set(out))


def include_dirs(env, canon):
    flags = env.get(canon + "_CPPFLAGS", "$(AM_CPPFLAGS)")
    return [w[2:].rstrip("/") or "." for w in expand(env, flags).split() if w.startswith("-I")]


def resolve(srcdir, inc, here, dirs, quoted):
    for d in ([here] if quoted else []) + dirs:
        p = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(os.path.join(srcdir, p)):
            return p
    return None


def includes(srcdir, files, dirs, texts=None):
    """Every tree header FILES reach, directly or through other headers:
    (header, the file that included it, its line). TEXTS (path -> text)
    replaces files, for the self-check."""
    seen, todo, found = set(files), list(files), []
    while todo:
        f = todo.pop()
        if texts is not None and f in texts:
            lines = texts[f].splitlines(True)
        else:
            try:
                with open(os.path.join(srcdir, f), errors="replace") as fh:
                    lines = fh.readlines()
            except OSError:
                continue
        for n, line in enumerate(lines, 1):
            m = _INCLUDE.match(line)
            if not m:
                continue
            h = resolve(srcdir, m.group(1), os.path.dirname(f), dirs, '"' in m.group(0))
            if h is None:
                continue
            found.append((h, f, n))
            if h not in seen:
                seen.add(h)
                todo.append(h)
    return found


def bad_edges(srcdir, texts=None):
    """One line per edge the table (and INNER) does not allow; TEXTS
    (path -> text) replaces Makefile fragments and sources."""
    env, where = read_fragments(srcdir, texts)
    diag = set()
    for canon, path in targets(env):
        src = layer(path)
        allowed = ALLOWED.get(src, set())
        if src is None:
            diag.add("%s: %s is in no layer (tests/layout/layers.py)" % (where.get(canon + "_SOURCES", "?"), path))
            continue
        if allowed is None:
            continue
        files = []
        for kind in ("_SOURCES", "_LDADD", "_LIBADD"):
            for w in expand(env, env.get(canon + kind, "")).split():
                if "/" not in w or w.startswith("-"):
                    continue
                if kind == "_SOURCES":
                    files.append(w)
                dst = layer(w)
                if dst != src and dst not in allowed:
                    diag.add("%s: %s %s %s (%s -> %s)" % (where.get(canon + kind, "?"), path,
                                                          kind[1:], w, src, dst))
        # An include is an edge of the includer's layer: a header of
        # lib/host that atsd's -I path lets include atsd's would be host's.
        for h, f, n in includes(srcdir, files, include_dirs(env, canon), texts):
            frm, dst = layer(f), layer(h)
            ok = ALLOWED.get(frm, set())
            if dst != frm and ok is not None and dst not in ok:
                diag.add("%s:%d: includes %s (%s -> %s), built into %s" %
                         (f, n, h, frm, dst, path))
            why = inner_edge(f, h)
            if why:
                diag.add("%s:%d: includes %s (%s), built into %s" % (f, n, h, why, path))
    return sorted(diag)
