#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""libibats' ABI, in TAP (make check):
  - lib/libibats/libibats.map names every symbol (no wildcard in a
    global list, no name twice), so nothing reaches the ABI unlisted;
  - the map names exactly the functions <ibats/ibats.h> declares: a
    function added to the header and not to the map (or the reverse)
    fails here rather than at a caller's link;
  - debian/libibats1.symbols lists the same name@version pairs;
  - the built libibats.so exports exactly those name@version pairs.
"""

import os
import re
import subprocess

from tap import check, plan, skip

srcdir = os.environ.get("top_srcdir", ".")
builddir = os.environ.get("top_builddir", ".")
HEADER = "include/ibats/ibats.h"
MAP = "lib/libibats/libibats.map"
SYMBOLS = "debian/libibats1.symbols"
LIB = "lib/libibats/.libs/libibats.so"


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


def header_functions(text):
    """The functions TEXT (a C header) declares: a name followed by its
    parameter list, preceded by its return type."""
    return set(re.findall(r"[\w*]\s+\**(ibats_\w+)\s*\(", strip_comments(text)))


def map_nodes(text):
    """[(node, [global names])] of a version script, in order."""
    nodes = []
    for node, body in re.findall(r"([\w.]+)\s*\{(.*?)\}", strip_comments(text), flags=re.S):
        glob = body.split("local:")[0].replace("global:", "")
        nodes.append((node, [n.strip() for n in glob.split(";") if n.strip()]))
    return nodes


def map_pairs(nodes):
    return set("%s@%s" % (n, node) for node, names in nodes for n in names)


def map_problems(nodes):
    diag, seen = [], set()
    for node, names in nodes:
        for n in names:
            if not re.fullmatch(r"\w+", n):
                diag.append("%s: %s is not a name" % (node, n))
            if n in seen:
                diag.append("%s: %s listed twice" % (node, n))
            seen.add(n)
    return diag


def differ(want, have, want_name, have_name):
    return (["in %s, not in %s: %s" % (want_name, have_name, s) for s in sorted(want - have)] +
            ["in %s, not in %s: %s" % (have_name, want_name, s) for s in sorted(have - want)])


def self_check(header, nodes):
    """The check itself: a function added to the header alone is found."""
    added = header + "\nint ibats_new_call(struct ibats *h);\n"
    names = set(n for _, ns in nodes for n in ns)
    found = differ(header_functions(added), names, HEADER, MAP)
    want = "in %s, not in %s: ibats_new_call" % (HEADER, MAP)
    check("t_abi: a function declared in the header alone is found",
          [] if want in found else ["not reported: " + want])


def main():
    header = open(os.path.join(srcdir, HEADER)).read()
    nodes = map_nodes(open(os.path.join(srcdir, MAP)).read())
    self_check(header, nodes)
    check("%s names every symbol, each once" % MAP, map_problems(nodes) or
          ([] if nodes else ["no version node"]))
    names = set(n for _, ns in nodes for n in ns)
    check("%s names exactly the functions %s declares" % (MAP, HEADER),
          differ(header_functions(header), names, HEADER, MAP))

    pairs = map_pairs(nodes)
    with open(os.path.join(srcdir, SYMBOLS)) as f:
        listed = set(l.split()[0] for l in f if l.startswith(" ") and "@" in l)
    listed -= set("%s@%s" % (node, node) for node, _ in nodes)
    check("%s lists the map's name@version pairs" % SYMBOLS, differ(pairs, listed, MAP, SYMBOLS))

    lib = os.path.join(builddir, LIB)
    if not os.path.exists(lib):
        skip("libibats.so exports the map's name@version pairs", "not built")
    else:
        out = subprocess.run(["objdump", "-T", lib], check=True, capture_output=True,
                             text=True).stdout
        exported = set()
        for l in out.splitlines():
            parts = l.split()
            # VALUE FLAGS... SECTION SIZE VERSION NAME: defined ones only
            if len(parts) >= 4 and "*UND*" not in parts and parts[-1].startswith("ibats_"):
                exported.add("%s@%s" % (parts[-1], parts[-2].strip("()")))
        check("libibats.so exports the map's name@version pairs",
              differ(pairs, exported, MAP, "libibats.so"))
    plan()


if __name__ == "__main__":
    main()
