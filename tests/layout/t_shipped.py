#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""What the packages ship against what the docs say, in TAP (make check):
  - debian/examples/osmats.conf and atsd.conf are the EXAMPLE section of
    osmats.conf(5) and atsd.conf(5), line for line (groff escapes read as
    man prints them), after one header line that says so;
  - both packages ship them: the Debian .examples files and the RPM
    spec's %doc name each;
  - the alert rules are where README.md and the man pages send Prometheus:
    every installed path they give is ALERTS, the Debian package installs
    the file there uncompressed (dh_compress told to leave .yml alone),
    and the RPM's agent ships doc/alerts as its %doc (rpm compresses
    nothing); build-debs.sh checks the built .deb too.
"""

import os
import re
import sys
from tap import check, plan

srcdir = os.environ.get("top_srcdir", ".")
EXAMPLES = {
    "debian/examples/osmats.conf": ("doc/osmats.conf.5", "osmats.conf(5)",
                                    "debian/opensm-plugin-osmats.examples"),
    "debian/examples/atsd.conf": ("doc/atsd.conf.5", "atsd.conf(5)",
                                  "debian/ibats-agent.examples"),
}
ALERTS = "/usr/share/doc/ibats-agent/alerts/ibats.rules.yml"
# The escapes an EXAMPLE's .nf block may hold, as man prints them.
ESCAPES = [("\\-", "-"), ("\\e", "\\"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\&", ""),
           ("\\ ", " ")]


def read(rel):
    with open(os.path.join(srcdir, rel), encoding="utf-8") as f:
        return f.read()


def man_example(page):
    """The lines of the page's EXAMPLE (or EXAMPLES) section's first
    .nf/.fi block, unescaped; None when there is none."""
    m = re.search(r"^\.SH EXAMPLES?\n.*?^\.nf\n(.*?)^\.fi$", read(page), re.S | re.M)
    if not m:
        return None
    lines = []
    for line in m.group(1).splitlines():
        for esc, text in ESCAPES:
            line = line.replace(esc, text)
        lines.append(line)
    return lines


def diff(want, got):
    """The first lines where got differs from want."""
    out = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else "(none)"
        g = got[i] if i < len(got) else "(none)"
        if w != g:
            out.append("line %d: man page %r, shipped %r" % (i + 2, w, g))
    return out[:10]


def main():
    spec = read("redhat/ibats.spec.in")
    for shipped, (page, name, dotexamples) in EXAMPLES.items():
        want = man_example(page)
        lines = read(shipped).splitlines()
        header = "# Example %s, from the EXAMPLE section of %s." % (
            os.path.basename(shipped), name)
        bad = []
        if want is None:
            bad.append("%s has no EXAMPLE section with a .nf block" % page)
        elif not lines or lines[0] != header:
            bad.append("%s: the first line is not %r" % (shipped, header))
        else:
            bad += diff(want, lines[1:])
        check("%s is the EXAMPLE of %s" % (shipped, name), bad)
        ships = []
        # A dist tarball has the spec but not debian/'s lists.
        if os.path.exists(os.path.join(srcdir, dotexamples)) and \
                shipped not in read(dotexamples).split():
            ships.append("%s does not name it" % dotexamples)
        if not re.search(r"^%%doc .*\b%s\b" % re.escape(shipped), spec, re.M):
            ships.append("redhat/ibats.spec.in's %doc does not name it")
        check("... and the Debian and RPM packages ship it", ships)
    docs = ["README.md"] + ["doc/" + f for f in sorted(os.listdir(os.path.join(srcdir, "doc")))
                            if re.match(r".*\.[1-8]$", f)]
    paths = set()
    for rel in docs:
        paths |= {(rel, p) for p in re.findall(r"/usr/share/doc/[^\s`'\"\\]*rules\.yml[^\s`'\"\\]*",
                                                read(rel).replace("\\-", "-"))}
    check("the docs give the alert rules' installed path as %s (%d mentions)" % (ALERTS, len(paths)),
          ["%s: %s" % rp for rp in sorted(paths) if rp[1] != ALERTS] or
          ([] if paths else ["no doc names it"]))
    deb = []
    if os.path.exists(os.path.join(srcdir, "debian/rules")):
        if not re.search(r"^usr/share/doc/ibats/alerts/ibats\.rules\.yml usr/share/doc/ibats-agent/alerts$",
                         read("debian/ibats-agent.install"), re.M):
            deb.append("debian/ibats-agent.install does not put it in " + os.path.dirname(ALERTS))
        if not re.search(r"^\tdh_compress .*-X\s*\.yml\b", read("debian/rules"), re.M):
            deb.append("debian/rules does not keep dh_compress off .yml files")
    if not re.search(r"^%files agent\n(?:(?!^%files).*\n)*?%doc .*\bdoc/alerts\b", spec, re.M):
        deb.append("redhat/ibats.spec.in's agent %doc does not ship doc/alerts")
    check("... and the Debian and RPM agent packages install it there", deb)
    plan()
    return 0


sys.exit(main())
