#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""promcheck FILE NAME=VALUE...: FILE parses with the reference Prometheus
client's parser and keeps the format's rules that parser does not check
(strict()), every family has HELP and a counter or gauge TYPE, every
name is ibats_*, and each sample NAME (with {labels} as the file spells
them, in order) has VALUE, or at least VALUE when it ends in '+'."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def key(s):
    return s.name + ("{" + ",".join('%s="%s"' % kv for kv in s.labels.items()) + "}"
                     if s.labels else "")


def strict(text):
    """What the client's lenient parser lets by (the text format 0.0.4
    rules): one HELP and one TYPE per family, before its samples, which
    follow it without another family between; counters end in _total;
    no series twice."""
    typed, helped, series, cur = {}, set(), set(), None
    for n, line in enumerate(text.splitlines(), 1):
        where = "line %d" % n
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            if name in helped:
                sys.exit("%s: second HELP for %s" % (where, name))
            helped.add(name)
        elif line.startswith("# TYPE "):
            name, kind = line.split(" ")[2:4]
            if name in typed:
                sys.exit("%s: second TYPE for %s" % (where, name))
            if kind == "counter" and not name.endswith("_total"):
                sys.exit("%s: counter %s does not end in _total" % (where, name))
            typed[name] = kind
            cur = name
        elif line and not line.startswith("#"):
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name != cur:
                sys.exit("%s: %s outside its family (in %s)" % (where, name, cur))
            head = line.rsplit(" ", 1)[0]
            if head in series:
                sys.exit("%s: %s twice" % (where, head))
            series.add(head)
    if helped != set(typed):
        sys.exit("HELP without TYPE or TYPE without HELP: %s" % (helped ^ set(typed)))


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    strict(text)
    samples = {}
    for fam in text_string_to_metric_families(text):
        if not fam.name.startswith("ibats_"):
            sys.exit("%s: not ibats_*" % fam.name)
        if fam.type not in ("counter", "gauge") or not fam.documentation:
            sys.exit("%s: type %s, help %r" % (fam.name, fam.type, fam.documentation))
        for s in fam.samples:
            samples[key(s)] = s.value
    for want in sys.argv[2:]:
        name, value = want.rsplit("=", 1)
        if name not in samples:
            sys.exit("%s: no such sample" % name)
        got = samples[name]
        ok = got >= float(value[:-1]) if value.endswith("+") else got == float(value)
        if not ok:
            sys.exit("%s: %s, not %s" % (name, got, value))


main()
