#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""ThreadSanitizer reports of an integration test, judged and symbolized.

    tsan_report.py SRCDIR BUILDDIR FILE...

FILE: TSan's log files (log_path=...: one per process that reported). The
harness runs TSan with symbolize=0 (its in-process symbolizer deadlocked
under the simulator stack the tests once ran on), so a frame is only
"module+offset". The modules of the build tree are symbolized here with addr2line (functions, inlined ones too) and
nm (the globals of "Location is global"). A report names our code when the
code of one of its accesses (a stack's first frame outside TSan's own
interceptors; not where a thread, mutex or heap block was made) is in a
source file under plugin/, lib/ or hostagent/ of SRCDIR; those are printed
whole, symbolized, and the exit status is 1. The others
(libibumad or OpenSM's threads racing in their own memory, none of them
instrumented) are listed one line each.
"""

import bisect
import os
import re
import subprocess
import sys

OURS = ("plugin/", "lib/", "hostagent/")
FRAME = re.compile(r"^(\s*#\d+ )(.*) \((\S+)\+0x([0-9a-f]+)\)$")
GLOBAL = re.compile(r"^(\s*Location is global )'<null>' at 0x0+ \((\S+)\+0x([0-9a-f]+)\)$")
SEP = "=================="
CONTEXT = re.compile(r"created (at|by)|allocated by|Location is")


def find_module(builddir, name, cache={}):
    """The ELF file of the build tree a module name (a basename) is, or None."""
    if name not in cache:
        cache[name] = None
        for root, dirs, files in os.walk(builddir):
            dirs.sort(key=lambda d: d != ".libs")  # libtool's real binaries first
            if name in files:
                path = os.path.realpath(os.path.join(root, name))
                with open(path, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        cache[name] = path
                        break
    return cache[name]


def addr2line(path, offsets):
    """{offset: [(function, "file:line"), ...]}, innermost inlined first."""
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-C", "-e", path] +
                         ["0x%x" % o for o in offsets],
                         capture_output=True, text=True, check=False).stdout.splitlines()
    res, cur = {}, None
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):
            cur = res.setdefault(int(out[i], 16), [])
            i += 1
        elif i + 1 < len(out):
            cur.append((out[i], out[i + 1]))
            i += 2
        else:
            break
    return res


def symbols(path, cache={}):
    """(sorted addresses, [(address, size, name)]) of path's data symbols."""
    if path not in cache:
        out = subprocess.run(["nm", "-C", "-S", "--defined-only", path],
                             capture_output=True, text=True, check=False).stdout
        syms = []
        for line in out.splitlines():
            f = line.split(None, 3)
            if len(f) == 4 and f[2] in "bBdDrR":
                syms.append((int(f[0], 16), int(f[1], 16), f[3]))
        syms.sort()
        cache[path] = ([s[0] for s in syms], syms)
    return cache[path]


def global_name(path, off):
    addrs, syms = symbols(path)
    i = bisect.bisect_right(addrs, off) - 1
    if i >= 0 and off < syms[i][0] + max(syms[i][1], 1):
        return syms[i][2]
    return None


def source_rel(srcdir, builddir, path):
    """A source path addr2line printed, relative to srcdir when inside it."""
    if not os.path.isabs(path):
        path = os.path.join(builddir, path)
    path = os.path.normpath(path)
    rel = os.path.relpath(path, srcdir)
    return path if rel.startswith("..") else rel


def judge(srcdir, builddir, lines):
    """(names our code, the report's lines symbolized)."""
    wanted = {}
    for line in lines:
        m = FRAME.match(line)
        if m:
            # TSan prints a return address less one already: in the call.
            wanted.setdefault(m.group(3), set()).add(int(m.group(4), 16))
    syms = {}
    for mod, offs in wanted.items():
        path = find_module(builddir, mod)
        if path:
            syms[mod] = (path, addr2line(path, sorted(offs)))
    ours, out, top = False, [], None
    for line in lines:
        m = FRAME.match(line)
        g = GLOBAL.match(line)
        if not m:
            # A stack's heading. Where a mutex, a thread or a heap block
            # was made tells nothing of who raced: only the others count,
            # by their first frame outside TSan's own interceptors.
            top = None if CONTEXT.search(line) else "want"
        elif top == "want" and not m.group(3).startswith("libtsan"):
            top = "seen"
            if m.group(3) in syms:
                frames = syms[m.group(3)][1].get(int(m.group(4), 16)) or []
                ours |= any(source_rel(srcdir, builddir, loc.rpartition(":")[0]).startswith(OURS)
                            for fn, loc in frames)
        if m and m.group(3) in syms:
            frames = syms[m.group(3)][1].get(int(m.group(4), 16)) or [("??", "??:0")]
            text = []
            for fn, loc in frames:
                file, _, lineno = loc.rpartition(":")
                file = source_rel(srcdir, builddir, file) if file not in ("", "??") else "??"
                text.append("%s %s:%s" % (fn, file, lineno.split()[0] if lineno else "?"))
            line = "%s%s (%s+0x%s)" % (m.group(1), " inlined in ".join(text),
                                       m.group(3), m.group(4))
        elif g:
            path = find_module(builddir, g.group(2))
            name = path and global_name(path, int(g.group(3), 16))
            if name:
                line = "%s'%s' (%s+0x%s)" % (g.group(1), name, g.group(2), g.group(3))
        out.append(line)
    return ours, out


def reports(path):
    """The reports of one log file, each a list of lines."""
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line == SEP:
                if cur:
                    yield cur
                cur = [] if cur is None else None
            elif cur is not None:
                cur.append(line)
    if cur:
        yield cur


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: tsan_report.py SRCDIR BUILDDIR FILE...")
    srcdir, builddir = os.path.realpath(argv[1]), os.path.realpath(argv[2])
    bad = 0
    for path in argv[3:]:
        if not os.path.isfile(path):
            continue  # the shell's unmatched glob: no process reported
        for rep in reports(path):
            ours, lines = judge(srcdir, builddir, rep)
            title = rep[0].strip() if rep else "?"
            if ours:
                bad += 1
                print("%s: report naming our code:" % os.path.basename(path))
                print("\n".join(lines))
            else:
                print("%s: not ours: %s" % (os.path.basename(path), title))
    print("%d ThreadSanitizer report(s) name ibats code" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
