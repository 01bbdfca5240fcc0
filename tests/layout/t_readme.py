#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The README a site reads first, and the runbook it leads to, in TAP
(make check):
  - the README starts with exactly the two commands for a fresh Debian 12
    machine, then says what problem ibats solves;
  - it is a front door: at most 250 lines, its sections (who benefits and
    who does not, requirements, deploying, day 2, the documentation), and
    every file it links exists;
  - the messages doc/deploy.md's troubleshooting quotes are the ones the
    programs print (each quoted phrase is in the page and in the code),
    and the OpenSM pin it quotes is the one debian/rules makes;
  - no command of these pages puts the SM_Key on the command line;
  - scripts/deps-debian.sh leaves no subnet manager enabled (Debian's
    opensm enables one on every port) unless IBATS_KEEP_OPENSM=1, and
    the README and doc/deploy.md say so.
"""

import glob
import os
import re
import sys
from tap import check, plan

srcdir = os.environ.get("top_srcdir", ".")
SECTIONS = ["Who benefits, and who does not", "Requirements", "Deploying on a fabric",
            "Day 2", "Documentation"]
MAX_LINES = 250
# The runbook: its sections, in this order.
DEPLOY_SECTIONS = ["1. The SM nodes (both)", "2. The hosts", "3. Metrics and alerts",
                   "4. RHEL-family 9", "Troubleshooting", "Upgrading and rollback"]
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
    ("control_group: no group\n  'ibats' on this machine", "control_group: no group '%s' on this machine"),
    ("request rejected as invalid (ERR_REQ_INVALID)", "request rejected as invalid (ERR_REQ_INVALID)"),
]



def read(rel):
    with open(os.path.join(srcdir, rel), encoding="utf-8") as f:
        return f.read()


def check_sections(what, text, want):
    titles = re.findall(r"^##+ (.*)$", text, re.M)
    missing = [t for t in want if t not in titles]
    order = [t for t in titles if t in want]
    check(what + "its sections: " + ", ".join(want),
          ["missing: %s" % missing] if missing else
          ([] if order == want else ["in this order: %s" % order]))


def main():
    readme = read("README.md")
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
    lines = readme.count("\n")
    check("README.md is at most %d lines" % MAX_LINES,
          [] if lines <= MAX_LINES else ["%d lines" % lines])
    check_sections("README.md: ", readme, SECTIONS)
    deploy = read("doc/deploy.md")
    check_sections("doc/deploy.md: ", deploy, DEPLOY_SECTIONS)
    diag = []
    for page, text in (("README.md", readme), ("doc/deploy.md", deploy),
                       ("doc/packaging.md", read("doc/packaging.md")),
                       ("doc/testing.md", read("doc/testing.md"))):
        base = os.path.dirname(os.path.join(srcdir, page))
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            if not os.path.exists(os.path.join(base, target)):
                diag.append("%s links %s: no such file" % (page, target))
    check("every file the README and the guides link exists", diag)

    code = ""
    for f in glob.glob(os.path.join(srcdir, "hostagent/*/*.c")) + \
            glob.glob(os.path.join(srcdir, "hostagent/atsd/*/*.c")) + \
            glob.glob(os.path.join(srcdir, "lib/*/*.c")):
        code += open(f, encoding="utf-8").read()
    diag = []
    for quoted, written in MESSAGES:
        if quoted not in deploy:
            diag.append("doc/deploy.md no longer quotes %r" % quoted)
        if written not in code:
            diag.append("no program writes %r" % written)
    check("the troubleshooting quotes what atsd and atsctl print", diag)

    keyed = re.compile(r"(^|\s)(\\?-k|(\\?-){2}smkey)[ =]\"?\$")
    diag = []
    for page in ("README.md", "doc/deploy.md", "doc/packaging.md"):
        diag += ["%s: %s" % (page, l.strip()) for l in read(page).split("\n") if keyed.search(l)]
    for page in ("atsctl.8", "atsd.8", "libosmats.8"):
        text = open(os.path.join(srcdir, "doc", page), encoding="utf-8").read()
        diag += ["%s: %s" % (page, l.strip()) for l in text.split("\n") if keyed.search(l)]
    check("no command puts the site's SM_Key on the command line (-k \"$KEY\")", diag)

    rules = open(os.path.join(srcdir, "debian/rules"), encoding="utf-8").read()
    pin = re.search(r"opensm \(>= \$\(OSM_UPSTREAM\)\), opensm \(<< \$\(OSM_UPSTREAM\)\+~\)", rules)
    quoted = re.search(r"`opensm \(>= ([0-9.]+)\), opensm \(<< ([0-9.]+)\+~\)`", deploy)
    check("the OpenSM pin it quotes is debian/rules' (>= V, << V+~)",
          [] if pin and quoted and quoted.group(1) == quoted.group(2) else
          ["debian/rules: %s, doc/deploy.md: %s" % (bool(pin), quoted.group(0) if quoted else None)])
    deps = read("scripts/deps-debian.sh")
    diag = []
    if not re.search(r"systemctl disable opensm\.service", deps):
        diag.append("deps-debian.sh does not disable opensm.service")
    if not re.search(r"systemctl stop opensm\.service", deps):
        diag.append("deps-debian.sh does not stop opensm.service")
    if "IBATS_KEEP_OPENSM" not in deps:
        diag.append("deps-debian.sh has no IBATS_KEEP_OPENSM")
    for page, text in (("README.md", readme), ("doc/deploy.md", deploy)):
        if "IBATS_KEEP_OPENSM=1" not in text or "PORTS=ALL" not in text and "every port" not in text:
            diag.append("%s does not say that the script disables Debian's opensm.service" % page)
    check("deps-debian.sh leaves no subnet manager enabled, and the pages say so", diag)
    plan()
    return 0


sys.exit(main())
