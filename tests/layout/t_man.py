#!/usr/bin/env python3
"""The manual pages (doc/), in TAP (make check):
  - every page's NAME line mentions ibats, and `apropos ibats` (man-db's
    index of the pages, built in a scratch directory) lists every page;
  - every page of sections 8 and 3 has EXAMPLES; atsd(8) and atsctl(8)
    have EXIT STATUS and FILES;
  - the config grammar is the same text in atsd.conf(5) and osmats.conf(5)
    (one parser, lib/core/cfg.c);
  - groff finds nothing to warn about (man --warnings);
  - each section 3 example compiles against <ibats/ibats.h>.
A page that is only a .so link to another is checked through its target.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from tap import check, plan, skip

srcdir = os.environ.get("top_srcdir", ".")
DOC = os.path.join(srcdir, "doc")
GRAMMAR = re.compile(r"^\.\\\" grammar begin.*?^\.\\\" grammar end$", re.S | re.M)




def pages():
    """Every page: (path relative to doc/, section, text), .so links apart."""
    out, links = [], []
    for path in sorted(glob.glob(os.path.join(DOC, "*.[1-8]")) +
                       glob.glob(os.path.join(DOC, "man3", "*.3"))):
        rel = os.path.relpath(path, DOC)
        text = open(path, encoding="utf-8").read()
        if text.startswith(".so "):
            links.append(rel)
        else:
            out.append((rel, rel[-1], text))
    return out, links


def sections(text):
    return re.findall(r"^\.SH \"?([^\"\n]+)\"?$", text, re.M)


def name_line(text):
    m = re.search(r"^\.SH NAME\n(.*?)(?=^\.S[HS] )", text, re.S | re.M)
    return m.group(1).replace("\n", " ") if m else ""


def examples(text):
    """The code blocks (.nf ... .fi) of the EXAMPLES section, unescaped."""
    m = re.search(r"^\.SH EXAMPLES\n(.*?)(?=^\.SH |\Z)", text, re.S | re.M)
    blocks = re.findall(r"^\.nf\n(.*?)^\.fi$", m.group(1), re.S | re.M) if m else []
    out = []
    for b in blocks:
        lines = [l for l in b.split("\n") if not l.startswith(".")]
        code = "\n".join(lines)
        code = code.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
        out.append(code)
    return out


def man_warnings(rel):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80", MAN_KEEP_FORMATTING="")
    r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", rel], cwd=DOC, env=env,
                       capture_output=True, text=True)
    return [rel + ": " + l for l in r.stderr.splitlines()] + \
        ([rel + ": man exited %d" % r.returncode] if r.returncode else [])


def apropos(all_pages):
    """Names apropos lists for "ibats", from an index of these pages alone."""
    with tempfile.TemporaryDirectory() as tmp:
        for rel in all_pages:
            sec = rel[-1]
            os.makedirs(os.path.join(tmp, "man" + sec), exist_ok=True)
            shutil.copy(os.path.join(DOC, rel), os.path.join(tmp, "man" + sec))
        subprocess.run(["mandb", "-q", "-u", "-c", tmp], capture_output=True, check=True)
        r = subprocess.run(["apropos", "ibats"], env=dict(os.environ, MANPATH=tmp,
                                                          LC_ALL="C.UTF-8"),
                           capture_output=True, text=True)
        return {l.split(" (")[0] for l in r.stdout.splitlines()}


def main():
    found, links = pages()
    check("the manual pages are found (%d, %d links)" % (len(found), len(links)),
          [] if len(found) >= 6 else ["no pages in " + DOC])
    check("every NAME line mentions ibats (apropos ibats)",
          ["%s: %s" % (rel, name_line(t) or "no NAME section")
           for rel, _, t in found if "ibats" not in name_line(t).lower()])
    if shutil.which("mandb") and shutil.which("apropos"):
        want = {os.path.basename(rel)[:-2] for rel in [r for r, _, _ in found] + links}
        try:
            got = apropos([r for r, _, _ in found] + links)
            check("apropos ibats lists every page", ["not listed: " + p for p in sorted(want - got)])
        except subprocess.CalledProcessError as e:
            check("apropos ibats lists every page", ["mandb failed: %s" % e.stderr])
    else:
        skip("apropos ibats lists every page", "man-db's mandb is not installed")
    check("every page of sections 8 and 3 has EXAMPLES",
          [rel for rel, sec, t in found if sec in "38" and "EXAMPLES" not in sections(t)])
    texts = {rel: t for rel, _, t in found}
    for page, want in (("atsd.8", ("EXIT STATUS", "FILES")), ("atsctl.8", ("EXIT STATUS", "FILES"))):
        check("%s has %s" % (page, " and ".join(want)),
              ["no " + w for w in want if w not in sections(texts.get(page, ""))])
    a = GRAMMAR.findall(texts.get("atsd.conf.5", ""))
    o = GRAMMAR.findall(texts.get("osmats.conf.5", ""))
    check("the config grammar is the same text in atsd.conf(5) and osmats.conf(5)",
          [] if len(a) == 1 and a == o else
          ["grammar blocks: %d in atsd.conf.5, %d in osmats.conf.5, %s" %
           (len(a), len(o), "equal" if a == o else "different")])
    if shutil.which("man"):
        diag = []
        for rel in [r for r, _, _ in found] + links:
            diag += man_warnings(rel)
        check("man --warnings: groff has nothing to say", diag)
    else:
        skip("man --warnings: groff has nothing to say", "man-db is not installed")
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc.split()[0]):
        skip("the section 3 examples compile", "no C compiler")
        plan()
        return 0
    diag = []
    for rel, sec, t in found:
        if sec != "3":
            continue
        for code in examples(t):
            r = subprocess.run(cc.split() + ["-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                                             "-I" + os.path.join(srcdir, "include"),
                                             "-x", "c", "-"],
                               input=code, capture_output=True, text=True)
            diag += ["%s: %s" % (rel, l) for l in r.stderr.splitlines()]
        if not examples(t):
            diag.append("%s: no code in EXAMPLES" % rel)
    check("the section 3 examples compile against <ibats/ibats.h>", diag)
    plan()
    return 0


sys.exit(main())
