# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""TAP for the layout tests (automake's tap-driver.sh): one numbered
result per check, the plan printed last."""

_n = 0


def check(desc, diag, todo=None):
    """One result; DIAG (lines) empty means ok; TODO marks a known failure."""
    global _n
    _n += 1
    print("%s %d - %s%s" % ("not ok" if diag else "ok", _n, desc,
                            " # TODO " + todo if todo else ""))
    for line in diag[:60]:
        print("#   " + line)


def skip(desc, why):
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, desc, why))


def plan():
    print("1..%d" % _n)
