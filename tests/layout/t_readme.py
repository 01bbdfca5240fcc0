#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The README a site reads first, in TAP (make check):
  - it starts with exactly the two commands for a fresh Debian 12 machine,
    then says what problem ibats solves;
  - it has the quick starts, the comparison with ibacm, troubleshooting
    and upgrading sections;
  - the messages its troubleshooting quotes are the ones the programs
    print (each quoted phrase is in the README and in the code), and the
    OpenSM pin it quotes is the one debian/rules makes.
"""

import glob
import os
import re
import sys
from tap import check, plan

srcdir = os.environ.get("top_srcdir", ".")
SECTIONS = ["Quick starts", "What it is", "Comparison with ibacm", "Troubleshooting",
            "Upgrading and rollback", "Tests"]
# (as the README quotes it, as the code writes it)
MESSAGES = [
    ("address(es) refused by the SA; the rest\nare registered",
     "address(es) refused by the SA; the rest are registered"),
    ("port lock /run/ibats/atsd-0x....lock", '"port lock %s: %s"'),
    ("another atsd serves port GUID 0x...", "another atsd serves port GUID 0x%016"),
    ("socket directory /run/ibats is writable by others", "is writable by others"),
    ("owned by uid N, neither root nor atsd's", "is owned by uid %u, neither root nor atsd's"),
    ("not allowed to enter the namespace (setns:\n  Operation not permitted): netns needs CAP_SYS_ADMIN",
     "not allowed to enter the namespace "),
    ("cannot read the neighbour table\n  of netns NS", "cannot read the neighbour table%s%s"),
    ("control_group: no group\n  'ibats'", "control_group: no group '%s'"),
    ("request rejected as invalid (ERR_REQ_INVALID)", "request rejected as invalid (ERR_REQ_INVALID)"),
]



def main():
    readme = open(os.path.join(srcdir, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"^```sh\n(.*?)^```$", readme, re.S | re.M)
    first = blocks[0].strip().split("\n") if blocks else []
    head = readme[:readme.index("```")] if "```" in readme else ""
    check("README.md starts with exactly two commands (a fresh Debian 12 machine)",
          [] if len(first) == 2 and "Debian 12" in head and "deps-debian.sh" in first[0]
          and "##" not in head.split("\n", 1)[1] else ["the first block: %r" % first])
    after = readme.split("```\n", 1)[-1] if readme.count("```") >= 2 else ""
    check("... then what problem it solves",
          [] if after.lstrip().startswith("**What problem this solves.**") else
          ["the paragraph after the commands: " + after.lstrip()[:80]])
    titles = re.findall(r"^## (.*)$", readme, re.M)
    missing = [t for t in SECTIONS if t not in titles]
    order = [t for t in titles if t in SECTIONS]
    check("its sections: " + ", ".join(SECTIONS),
          ["missing: %s" % missing] if missing else
          ([] if order == SECTIONS else ["in this order: %s" % order]))

    code = ""
    for f in glob.glob(os.path.join(srcdir, "hostagent/*/*.c")) + \
            glob.glob(os.path.join(srcdir, "hostagent/atsd/*/*.c")) + \
            glob.glob(os.path.join(srcdir, "lib/*/*.c")):
        code += open(f, encoding="utf-8").read()
    diag = []
    for quoted, written in MESSAGES:
        if quoted not in readme:
            diag.append("README no longer quotes %r" % quoted)
        if written not in code:
            diag.append("no program writes %r" % written)
    check("the troubleshooting quotes what atsd and atsctl print", diag)

    keyed = re.compile(r"(^|\s)(\\?-k|(\\?-){2}smkey)[ =]\"?\$")
    diag = ["README.md: " + l.strip() for l in readme.split("\n") if keyed.search(l)]
    for page in ("atsctl.8", "atsd.8", "libosmats.8"):
        text = open(os.path.join(srcdir, "doc", page), encoding="utf-8").read()
        diag += ["%s: %s" % (page, l.strip()) for l in text.split("\n") if keyed.search(l)]
    check("no command puts the site's SM_Key on the command line (-k \"$KEY\")", diag)

    rules = open(os.path.join(srcdir, "debian/rules"), encoding="utf-8").read()
    pin = re.search(r"opensm \(>= \$\(OSM_UPSTREAM\)\), opensm \(<< \$\(OSM_UPSTREAM\)\+~\)", rules)
    quoted = re.search(r"`opensm \(>= ([0-9.]+)\), opensm \(<< ([0-9.]+)\+~\)`", readme)
    check("the OpenSM pin it quotes is debian/rules' (>= V, << V+~)",
          [] if pin and quoted and quoted.group(1) == quoted.group(2) else
          ["debian/rules: %s, README: %s" % (bool(pin), quoted.group(0) if quoted else None)])
    plan()
    return 0


sys.exit(main())
