#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""Every name a header declares starts with its file's name, in TAP
(make check), as CONTRIBUTING.md asks of a module: in x.h each macro
and enum constant is X or X_*, each struct, union and enum tag and each
typedef is x or x_*, so a name leads to its file. Only file-scope names
count (a tag or constant inside a struct body is one too; a function
body's are not). Free of the rule: the include guard (IBATS_..._X_H) and
a function-like macro named as the file's functions are (x_*). Headers
of the product and the bench (HEADER_DIRS); not tests/, nor the public
<ibats/ibats.h> (ibats_*, t_abi.py). EXEMPT lists the exceptions, by
header, each with its reason.
"""

import os
import re

from tap import check, plan

srcdir = os.environ.get("top_srcdir", ".")
HEADER_DIRS = ["lib/core", "lib/host", "lib/libibats", "plugin", "hostagent/atsd",
               "hostagent/atsctl", "simhost", "acmprov"]
SKIP_DIRS = {"tests"}

# By header (file name, so that a header moving keeps its entry): the
# names (regular expressions, whole names) exempt from the rule, and why.
EXEMPT = {
    # rcm.c's state, opaque in rcm.h, shared with rcm_connect.c and
    # rcm_peer.c: rcm's own names in rcm's private header.
    "rcm_priv.h": [(r"rcm|rcm_slot", "rcm's state, shared by its files")],
    "priv.h": [
        # libibats' files share the library's names (t_layout.py's
        # PREFIX_EXEMPT): struct ibats is <ibats/ibats.h>'s handle.
        (r"ibats|IBATS_EXPORT", "libibats' own names, as its symbols"),
    ],
}

TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def strip(text):
    """TEXT without comments (newlines kept, for line numbers) and with
    the continuation lines of a directive joined."""
    def blank(m):
        s = m.group(0)
        return s if s[0] in "\"'" else " " + "\n" * s.count("\n")
    text = TOKENS.sub(blank, text)
    # keep the line count: a joined line's newline moves to its end
    out = []
    carry = 0
    for line in text.split("\n"):
        if line.endswith("\\"):
            out.append(line[:-1] + " ")
            carry += 1
            continue
        out.append(line + "\n" * (carry + 1))
        carry = 0
    return "".join(out)


def top_level(text, opens="([", closes=")]"):
    """TEXT's comma-separated parts outside any bracket."""
    parts, depth, part = [], 0, ""
    for c in text + ",":
        if c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        if c == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += c
    return parts


def declarators(stmt):
    """The names a typedef statement (body removed) declares."""
    names = []
    for part in top_level(stmt):
        m = (re.search(r"\(\s*\*+\s*(\w+)\s*\)", part) or
             re.search(r"(\w+)\s*\(", part) or
             re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", part))
        if m:
            names.append(m.group(1))
    return names


def declared(text):
    """[(line, kind, name, function-like)] of the file-scope names TEXT
    (a header) declares: kind is macro, tag, typedef or constant."""
    text = strip(text)
    found = []
    line = 1
    # brace stack: True for a struct/union/enum body, False otherwise
    stack = []
    stmt = ""  # the statement so far at this level, bodies elided
    stmts = [""]
    enum_part = [None]
    i = 0
    n = len(text)
    at_bol = True
    while i < n:
        c = text[i]
        if at_bol:
            m = re.match(r"[ \t]*#[ \t]*(\w+)[^\n]*", text[i:])
            if m:
                d = re.match(r"[ \t]*#[ \t]*define[ \t]+(\w+)(\()?", m.group(0))
                if d:
                    found.append((line, "macro", d.group(1), bool(d.group(2))))
                i += m.end()
                continue
        at_bol = c == "\n"
        if c == "\n":
            line += 1
        file_scope = all(stack)
        if c == '"' or c == "'":
            m = TOKENS.match(text, i)
            s = m.group(0) if m else c
            stmts[-1] += s
            i += len(s)
            continue
        if c == "{":
            head = stmts[-1]
            m = re.search(r"\b(struct|union|enum)\s*(\w+)?\s*$", head)
            agg = bool(m) and file_scope
            if agg and m.group(2):
                found.append((line, "tag", m.group(2), False))
            stack.append(agg)
            enum_part.append("" if agg and m.group(1) == "enum" else None)
            stmts.append("")
        elif c == "}":
            if stack:
                agg = stack.pop()
                ep = enum_part.pop()
                if ep is not None:
                    enum_constants(ep + stmts[-1], line, found)
                stmts.pop()
                # a function body ends its statement; a type's goes on
                stmts[-1] = stmts[-1] + " BODY " if agg else ""
        elif c == ";":
            st = stmts[-1]
            m = re.fullmatch(r"\s*(struct|union|enum)\s+(\w+)\s*", st)
            if file_scope and m:
                found.append((line, "opaque", m.group(2), False))
            if file_scope and not stack and re.match(r"\s*(?:__extension__\s+)?typedef\b", st):
                found += [(line, "typedef", nm, False) for nm in declarators(st + " ")]
            stmts[-1] = ""
        else:
            stmts[-1] += c
        i += 1
    return found


def enum_constants(body, line, found):
    for part in top_level(body, "([{", ")]}"):
        m = re.match(r"\s*(\w+)", part)
        if m:
            found.append((line, "constant", m.group(1), False))


def starts(name, prefix):
    return name == prefix or name.startswith(prefix + "_")


def c_tags(text):
    """The tags C file TEXT defines (has the body of)."""
    return set(re.findall(r"\b(?:struct|union|enum)\s+(\w+)\s*\{", strip(text)))


def violations(rel, text, own=()):
    """The names header REL (TEXT) declares against the rule. OWN: the
    tags its .c defines, so that the header's opaque types count."""
    base = os.path.basename(rel)[:-2]
    low, up = base.lower(), base.upper()
    guard = re.compile(r"IBATS_(?:\w+_)?%s_H" % up)
    exempt = [e for e, _ in EXEMPT.get(os.path.basename(rel), [])]
    diag = []
    for line, kind, name, fnlike in declared(text):
        if kind == "opaque":
            if name not in own:
                continue
            kind = "tag"
        if kind == "macro":
            ok = starts(name, up) or guard.fullmatch(name) or (fnlike and starts(name, low))
        elif kind == "constant":
            ok = starts(name, up)
        else:
            ok = starts(name, low)
        if ok or any(re.fullmatch(e, name) for e in exempt):
            continue
        diag.append("%s:%d: %s %s" % (rel, line, kind, name))
    return diag


def headers():
    for d in HEADER_DIRS:
        for root, dirs, files in os.walk(os.path.join(srcdir, d)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in sorted(files):
                if f.endswith(".h"):
                    yield os.path.relpath(os.path.join(root, f), srcdir)


GOOD = """\
#ifndef IBATS_SIM_X_H
#define IBATS_SIM_X_H
#define X_MAX 4 /* enum y { */
#define x_get(p) ((p)->a)
#define X_SET(p, v) \\
	((p)->a = (v))
struct x_ent;
struct x {
	struct x_inner { int a; } in;
	enum x_kind { X_ONE = (1 << 2), X_TWO, } kind;
};
typedef int (*x_fn)(struct y *a, int b);
typedef struct x_pair { int a[2]; } x_pair_t, *x_pair_p;
static inline int x_one(void)
{
	struct local { int a; } l = { 1 };
	enum { LOCAL_A = 1 };
	return l.a + LOCAL_A + X_MAX; // enum z { Z };
}
static const char *const x_text = "enum y { Y };";
#endif
"""
BAD = """\
#define Y_MAX 1
#define y_get(p) (p)
struct x { enum { X_A, Y_B } k; struct y_in { int a; } in; };
enum xy { X_C =
	  1,
	  LOOSE };
typedef unsigned long y_t;
typedef void (*y_cb)(void);
typedef int x_arr[4], y_arr[2];
struct y_own;
struct y_other;
"""


def self_check():
    """The parser on a header that keeps the rule and one that breaks it
    once per kind of name (y_own: an opaque type x.c defines)."""
    check("t_prefix: a header keeping the rule passes", violations("sim/x.h", GOOD))
    want = ["macro Y_MAX", "macro y_get", "constant Y_B", "tag y_in", "tag xy",
            "constant LOOSE", "typedef y_t", "typedef y_cb", "typedef y_arr", "tag y_own"]
    got = [d.split(": ", 1)[1] for d in violations("sim/x.h", BAD, {"y_own"})]
    check("t_prefix: each kind of name against the rule is found",
          ["not reported: " + w for w in want if w not in got] +
          ["reported: " + g for g in got if g not in want])


def main():
    self_check()
    diag = []
    for rel in headers():
        path = os.path.join(srcdir, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        own = set()
        if os.path.exists(path[:-2] + ".c"):
            with open(path[:-2] + ".c", encoding="utf-8") as f:
                own = c_tags(f.read())
        diag += violations(rel, text, own)
    check("every name a header declares starts with its file's name", diag)
    plan()


if __name__ == "__main__":
    main()
