#!/usr/bin/env python3
"""promcheck FILE NAME=VALUE...: FILE parses with the reference Prometheus
client's parser, every family has HELP and a counter or gauge TYPE, every
name is ibats_*, and each sample NAME (with {labels} as the file spells
them, in order) has VALUE, or at least VALUE when it ends in '+'."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def key(s):
    return s.name + ("{" + ",".join('%s="%s"' % kv for kv in s.labels.items()) + "}"
                     if s.labels else "")


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
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
