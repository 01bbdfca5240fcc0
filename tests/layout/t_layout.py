#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The tree's layout, in TAP (make check):
  - no cycle between the objects of a program (objdeps.py);
  - no source file over MAX_LINES lines;
  - libosmats.so exports osm_event_plugin alone, libibats.so ibats_* alone;
  - no global symbol of ours has the name of one a system library the
    program links exports (it would shadow that library's);
  - the product (PRODUCT_DIRS) neither includes nor builds anything of
    the simulated host (simhost: the kernel it plays, the CM codec);
  - every edge between directories, by link line or #include, is one
    the layering table allows (layers.py);
  - every global symbol of a module starts with its file's name (x.c:
    x or x_*), so a name leads to its file; PREFIX_EXEMPT lists the
    exceptions, each with its reason;
  - every source file (C, shell, Python, the build's fragments) has an
    SPDX licence line at its head (after a #! line).
The programs come from tests/layout/programs (written by make): the
linked file, then the objects and libraries it is linked from.
"""

import os
import re
import subprocess
import sys
import tempfile

import layers
import objdeps
from tap import check as tap_check, plan

MAX_LINES = 800
SOURCE_DIRS = ["lib", "plugin", "hostagent", "include", "examples", "tests/tools", "simhost"]
# Folders of modules: each .c has a header of its own, but a program's
# main file. libibats implements its public header, <ibats/ibats.h>.
MODULE_DIRS = ["lib/core", "lib/host", "plugin", "hostagent/atsd", "hostagent/atsd/ctl",
               "hostagent/atsd/state", "hostagent/atsd/main", "hostagent/atsd/sa",
               "hostagent/atsd/model", "hostagent/atsctl",
               "simhost/wire", "simhost/kernel", "simhost/daemon", "simhost/preload"]

# What ships; it uses no simulator code (simhost/RDMACM.md).
PRODUCT_DIRS = ["lib", "plugin", "hostagent", "include", "examples"]
SIMHOST_DIR = "simhost"

# Globals that do not start with their file's name, by module, and why.
PREFIX_EXEMPT = {
    # libibats' public ABI is ibats_* (its version script and symbols
    # file); ibl_* are the library's own names shared by its three files
    # through priv.h, hidden from the ABI.
    "handle": (r"ibats_\w+|ibl_\w+", "the public API of libibats"),
    "records": (r"ibats_\w+|ibl_\w+", "the public API of libibats"),
    "rdmacm": (r"ibats_\w+|ibl_\w+", "the public API of libibats"),
    # OpenSM finds an event plugin by this one symbol (osm_event_plugin.h).
    "osmats": (r"osm_event_plugin", "OpenSM's plugin ABI"),
}

# Checks that fail on today's tree, with why; a "# TODO" result does not
# fail make check (and passing, it is an XPASS that does: drop it then).
TODO = {}

srcdir = os.environ.get("top_srcdir", ".")
builddir = os.environ.get("top_builddir", ".")


def check(desc, diag):
    tap_check(desc, diag, TODO.get(desc))


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def system_libs(binary, flags):
    """The system libraries loaded with BINARY: every library ldd lists
    (libibverbs loads libnl-3 and libnl-route-3, whose imports our names
    would interpose on), and each -lX of FLAGS."""
    paths = set()
    for l in run("ldd", binary).splitlines():
        parts = l.split()
        if len(parts) >= 3 and parts[1] == "=>" and os.path.isabs(parts[2]):
            paths.add(os.path.realpath(parts[2]))
        elif parts and os.path.isabs(parts[0]):
            paths.add(os.path.realpath(parts[0]))  # the dynamic loader
    for f in flags:
        path = run(os.environ.get("CC", "cc"), "-print-file-name=lib%s.so" % f[2:]).strip()
        if os.path.isabs(path):
            paths.add(os.path.realpath(path))
    return sorted(paths)


def exports(lib):
    """The names LIB's dynamic symbol table defines (versions dropped)."""
    names = set()
    for l in run("nm", "-D", "--defined-only", lib).splitlines():
        parts = l.split()
        if len(parts) == 3 and parts[1] != "A":
            names.add(parts[2].split("@")[0])
    return names


def program(line):
    binary, *inputs = line.split()
    name = os.path.basename(binary)
    objs = objdeps.symbols(objdeps.resolve([x for x in inputs if not x.startswith("-")]))
    deps = objdeps.edges(objs)
    diag = []
    for cycle, comp in objdeps.cycles(objs, deps):
        diag.append("cycle: " + objdeps.describe(cycle, deps))
        diag.append("  its knot: " + " ".join(comp))
    check("no cycle between the objects of " + name, diag)

    ours = {}
    for obj, (defs, _) in objs.items():
        for s in defs:
            ours.setdefault(s, obj)
    diag = []
    for lib in system_libs(binary, objdeps.libflags(inputs)):
        for s in sorted(exports(lib) & set(ours)):
            diag.append("%s (%s) shadows %s's" % (s, ours[s], os.path.basename(lib)))
    check("no symbol of %s shadows a system library's" % name, diag)
    prefix_check(name, objs)
    return binary


def module_of(obj):
    """The module (source file name) an object was compiled from:
    automake names it TARGET-FILE.o, an archive member FILE.o."""
    m = re.search(r"\(([^()#]+)\.o(?:#\d+)?\)$", obj)
    base = m.group(1) if m else os.path.basename(obj)[:-2]
    return base.split("-")[-1]


def prefix_check(name, objs):
    diag = []
    for obj, (defs, _) in sorted(objs.items()):
        mod = module_of(obj)
        exempt = PREFIX_EXEMPT.get(mod, (None,))[0]
        for s in sorted(defs):
            # __*: the compiler's and sanitizers' own (__odr_asan.*)
            if s == mod or s.startswith(mod + "_") or s == "main" or s.startswith("__"):
                continue
            if exempt and re.fullmatch(exempt, s):
                continue
            diag.append("%s.c exports %s" % (mod, s))
    check("every global of %s starts with its file's name" % name, sorted(set(diag)))


def only_exports(binary, allowed, desc):
    bad = sorted(s for s in exports(binary) if not allowed(s))
    check(os.path.basename(binary) + " exports " + desc, ["also: " + s for s in bad])


SPDX_DIRS = ["lib", "plugin", "hostagent", "include", "examples", "tests", "scripts", "simhost"]
SPDX_EXT = (".c", ".h", ".sh", ".py", ".inc")


def spdx_missing():
    """Source files whose first lines (after #!) carry no
    SPDX-License-Identifier (COPYING: GPL-2.0-only OR Linux-OpenIB)."""
    diag = []
    paths = [os.path.join(srcdir, f) for f in ("Makefile.am", "configure.ac")]
    for d in SPDX_DIRS:
        for root, _, files in os.walk(os.path.join(srcdir, d)):
            paths += [os.path.join(root, f) for f in files if f.endswith(SPDX_EXT)]
    for path in sorted(paths):
        with open(path, errors="replace") as fh:
            head = fh.readline()
            if head.startswith("#!"):
                head = fh.readline()
        if "SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB" not in head:
            diag.append(os.path.relpath(path, srcdir))
    return diag


def simhost_uses():
    """Where the product reaches into simhost: a quoted #include of
    a header only simhost has, or a Makefile.inc naming it."""
    ours = set()
    for d in PRODUCT_DIRS:
        for _, _, files in os.walk(os.path.join(srcdir, d)):
            ours.update(f for f in files if f.endswith(".h"))
    sim = set(f for _, _, files in os.walk(os.path.join(srcdir, SIMHOST_DIR))
              for f in files if f.endswith(".h")) - ours
    diag = []
    for d in PRODUCT_DIRS:
        for root, _, files in os.walk(os.path.join(srcdir, d)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", "Makefile.inc")):
                    continue
                path = os.path.join(root, f)
                with open(path, errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if (m and (os.path.basename(m.group(1)) in sim or
                                   m.group(1).startswith(SIMHOST_DIR + "/"))) or \
                                (f == "Makefile.inc" and SIMHOST_DIR + "/" in line):
                            diag.append("%s:%d: %s" % (os.path.relpath(path, srcdir), n,
                                                       line.strip()))
    return diag


def self_check():
    """objdeps itself: two archive members of one name (x.c of two
    folders) are two objects, so a cycle between them is seen."""
    cc = os.environ.get("CC", "cc").split()
    with tempfile.TemporaryDirectory() as d:
        objs = []
        for sub, text in (("a", "int b(void);\nint a(void) { return b(); }\n"),
                          ("b", "int a(void);\nint b(void) { return a(); }\n")):
            os.mkdir(os.path.join(d, sub))
            src = os.path.join(d, sub, "x.c")
            with open(src, "w") as f:
                f.write(text)
            objs.append(os.path.join(d, sub, "x.o"))
            run(*cc, "-c", src, "-o", objs[-1])
        run("ar", "qc", os.path.join(d, "lib.a"), *objs)
        found = objdeps.symbols([os.path.join(d, "lib.a")])
        check("objdeps: a cycle between two archive members of one name is found",
              [] if list(objdeps.cycles(found, objdeps.edges(found))) else
              ["no cycle among " + " ".join(sorted(found))])


def layers_self_check():
    """layers itself: atsctl given the plugin's library is seen to break
    the table."""
    with open(os.path.join(srcdir, "hostagent/atsctl/Makefile.inc")) as f:
        text = f.read()
    bad = text.replace("hostagent_atsctl_atsctl_LDADD =",
                       "hostagent_atsctl_atsctl_LDADD = plugin/libpolicy.la")
    found = layers.bad_edges(srcdir, {"hostagent/atsctl/Makefile.inc": bad})
    want = ["LDADD plugin/libpolicy.la (atsctl -> plugin)"]
    diag = ["not reported: " + w for w in want if not any(w in l for l in found)]
    check("layers: a link line of atsctl naming plugin/ is found", diag)
    # The simulated kernel stands below its daemon: a kernel model linked
    # with the daemon's connections breaks simhost's own table.
    with open(os.path.join(srcdir, "simhost/Makefile.inc")) as f:
        text = f.read()
    bad = text.replace("simhost/kernel/kmod.c simhost/kernel/kmod.h",
                       "simhost/kernel/kmod.c simhost/kernel/kmod.h simhost/daemon/kconn.c")
    found = layers.bad_edges(srcdir, {"simhost/Makefile.inc": bad})
    want = "SOURCES simhost/daemon/kconn.c (simkernel -> simdaemon)"
    check("layers: simhost's kernel built with its daemon's file is found",
          [] if any(want in l for l in found) else ["not reported: " + want])
    # atsd's folders: model/ at the bottom including the SA thread's
    # jobs is an upward edge.
    plan_h = "hostagent/atsd/model/plan.h"
    with open(os.path.join(srcdir, plan_h)) as f:
        text = f.read()
    bad = text.replace('#include "core/ats.h"', '#include "core/ats.h"\n#include "sa/saj.h"')
    found = layers.bad_edges(srcdir, {plan_h: bad})
    want = "includes hostagent/atsd/sa/saj.h (atsd model/ -> sa/, upward)"
    check("layers: an include from atsd's model/ up to sa/ is found",
          [] if any(l.startswith(plan_h) and want in l for l in found) else
          ["not reported: %s %s" % (plan_h, want)])


def main():
    self_check()
    layers_self_check()
    with open(os.path.join(builddir, "tests/layout/programs")) as f:
        binaries = [program(line) for line in f if line.strip()]
    for b in binaries:
        if b.endswith("libosmats.so"):
            only_exports(b, lambda s: s == "osm_event_plugin", "osm_event_plugin alone")
        elif b.endswith("libibats.so"):
            only_exports(b, lambda s: s.startswith("ibats_"), "ibats_* alone")

    diag = []
    for d in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(srcdir, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    path = os.path.join(root, f)
                    with open(path, "rb") as fh:
                        lines = fh.read().count(b"\n")
                    if lines > MAX_LINES:
                        diag.append("%s: %d lines" % (os.path.relpath(path, srcdir), lines))
    check("no source file over %d lines" % MAX_LINES, sorted(diag))

    diag = []
    for d in MODULE_DIRS:
        for f in sorted(os.listdir(os.path.join(srcdir, d))):
            path = os.path.join(srcdir, d, f)
            if not f.endswith(".c") or os.path.exists(path[:-2] + ".h"):
                continue
            with open(path) as fh:
                if re.search(r"^int main\(", fh.read(), re.M):
                    continue
            diag.append("%s/%s has no header of its own" % (d, f))
    check("every module has a header of its own", diag)
    check("every source file has an SPDX licence line", spdx_missing())
    check("the product uses nothing of " + SIMHOST_DIR, simhost_uses())
    check("every edge between directories is one the layering table allows",
          layers.bad_edges(srcdir))
    plan()


if __name__ == "__main__":
    main()
