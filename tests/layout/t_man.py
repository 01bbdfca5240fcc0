#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The manual pages (doc/), in TAP (make check):
  - every page's NAME line mentions ibats, and `apropos ibats` (man-db's
    index of the pages, built in a scratch directory) lists every page;
  - every page of sections 8 and 3 has EXAMPLES; atsd(8) and atsctl(8)
    have EXIT STATUS and FILES;
  - the config grammar is the same text in atsd.conf(5) and osmats.conf(5)
    (one parser, lib/core/cfg.c);
  - groff finds nothing to warn about (man --warnings);
  - each section 3 example compiles against <ibats/ibats.h>;
  - the pages name what the code has: every 7Axx code the plugin logs is
    in libosmats(8)'s LOG CODES once, and nothing else is; every atsctl
    command and option of its tables is in atsctl(8) (its own options in
    the bash completion too), every atsd option in atsd(8), every key of
    the config tables in its section 5 page.
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
# rule.c's code for a rule out of range: no line is ever logged with it.
CODES_NEVER_LOGGED = {"7AFF"}


def source(rel):
    return open(os.path.join(srcdir, rel), encoding="utf-8").read()


def table(text, start):
    """The body of the C initializer that starts with START, up to its "};"."""
    m = re.search(re.escape(start) + r"(.*?)^\s*\};", text, re.S | re.M)
    return m.group(1) if m else ""


def roff(word):
    """WORD as the pages write it: a hyphen escaped."""
    return word.replace("-", "\\-")


def log_codes(texts):
    """Diagnostics: codes the plugin logs and libosmats(8) does not list
    once, codes listed that no line logs, the list out of order."""
    used = set()
    # The rules' codes are lib/core/rule.c's table; the plugin logs them.
    for path in glob.glob(os.path.join(srcdir, "plugin", "*.[ch]")) + \
            [os.path.join(srcdir, "lib/core/rule.c")]:
        used |= set(re.findall(r"\b7A[0-9A-F]{2}\b", open(path, encoding="utf-8").read()))
    used -= CODES_NEVER_LOGGED
    m = re.search(r"^\.SH LOG CODES\n(.*?)(?=^\.SH )", texts.get("libosmats.8", ""), re.S | re.M)
    listed = []
    # A row of its table: code (or range), level, cause, meaning.
    rows = re.findall(r"^(7A[0-9A-F]{2})(?:\.\.(7A[0-9A-F]{2}))?\t(ERR|WRN)\t\w+\t",
                      m.group(1) if m else "", re.M)
    for lo, hi, _ in rows:
        listed += ["%04X" % c for c in range(int(lo, 16), int(hi or lo, 16) + 1)]
    diag = ["%s: logged by plugin/, not in LOG CODES" % c for c in sorted(used - set(listed))]
    diag += ["%s: in LOG CODES, logged by no plugin/ source" % c
             for c in sorted(set(listed) - used)]
    diag += ["%s: listed %d times" % (c, listed.count(c)) for c in sorted(set(listed))
             if listed.count(c) > 1]
    # Each row's level is the one the code logs it at: ERR at
    # OSM_LOG_ERROR, WRN at OSM_LOG_INFO (the LOG CODES preamble).
    plugin = "".join(open(p, encoding="utf-8").read()
                     for p in glob.glob(os.path.join(srcdir, "plugin", "*.c")))
    for lo, hi, level in rows:
        for c in range(int(lo, 16), int(hi or lo, 16) + 1):
            other = {"ERR": "WRN", "WRN": "ERR"}[level]
            if re.search(r'"%s %04X' % (other, c), plugin):
                diag.append("%04X: %s in LOG CODES, logged as %s" % (c, level, other))
    for call in re.findall(r"(?:OSM|GLUE)_LOG\([^;]*?(?:OSM|GLUE)_LOG_(ERROR|INFO),\s*\"(ERR|WRN) (7A[0-9A-F]{2})",
                           plugin, re.S):
        if (call[0] == "ERROR") != (call[1] == "ERR"):
            diag.append("%s: logged as %s at level %s" % (call[2], call[1], call[0]))
    if listed != sorted(listed, key=lambda c: int(c, 16)):
        diag.append("LOG CODES not in ascending order: " + " ".join(listed))
    return diag


def atsctl_names():
    """atsctl's commands, its commands' long options and its own, from the
    tables in atsctl.c (the hidden --list-commands aside)."""
    c = source("hostagent/atsctl/atsctl.c")
    cmds = re.findall(r'^\t\{ "([a-z-]+)", "', table(c, "ctl_cmd cmds[] = {"), re.M)
    opts = re.findall(r'\{ "([a-z-]+)", \'', table(c, "cmd_optdefs[] = {"))
    own = [o for o in re.findall(r'\{ "([a-z-]+)", \w+_argument', table(c, "glob_lopts[] = {"))
           if o != "list-commands"]
    return cmds, opts, own


def option_names(texts):
    """Diagnostics: a command or option of the code missing from its page."""
    diag = []
    cmds, opts, own = atsctl_names()
    page = texts.get("atsctl.8", "")
    diag += ["atsctl.8: no command \\fB%s\\fR" % roff(c) for c in cmds
             if "\\fB%s\\fR" % roff(c) not in page]
    diag += ["atsctl.8: no option \\-\\-%s" % roff(o) for o in opts + own
             if "\\-\\-%s\\fR" % roff(o) not in page]
    comp = source("hostagent/atsctl/bash-completion/atsctl")
    m = re.search(r"local globals=\((.*?)\)", comp, re.S)
    offered = {w.strip("-=") for w in m.group(1).split()} if m else set()
    diag += ["bash-completion/atsctl: globals lack --%s" % o for o in own if o not in offered]
    diag += ["bash-completion/atsctl: --%s is no option of atsctl's" % o
             for o in sorted(offered - set(own))]
    atsd = re.findall(r'\{ "([a-z-]+)", \w+_argument',
                      table(source("hostagent/atsd/atsd.c"), "struct option opts[] = {"))
    diag += ["atsd.8: no option \\-\\-%s" % roff(o) for o in atsd
             if "\\-\\-%s\\fR" % roff(o) not in texts.get("atsd.8", "")]
    if not (cmds and opts and own and atsd):
        diag.append("the option tables were not found in atsctl.c or atsd.c")
    return diag


def config_keys(texts):
    """Diagnostics: a key of a config table missing from its page."""
    diag = []
    for src, start, page in (("lib/core/osmats_conf.c", "conf_keys[] = {", "osmats.conf.5"),
                             ("lib/host/agent_conf.c", "ac_keys[] = {", "atsd.conf.5")):
        keys = re.findall(r'(?:\{|RULE\() *"([a-z_]+)"', table(source(src), start))
        if not keys:
            diag.append("%s: no keys found in %s" % (src, start))
        diag += ["%s: no key \\fB%s\\fR (%s)" % (page, k, src) for k in keys
                 if "\\fB%s\\fR" % k not in texts.get(page, "")]
    return diag


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
    check("libosmats.8 lists every 7Axx code the plugin logs, once, in order",
          log_codes(texts))
    check("atsctl.8, atsd.8 and the bash completion name every command and option",
          option_names(texts))
    check("atsd.conf.5 and osmats.conf.5 name every key of the config tables",
          config_keys(texts))
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
