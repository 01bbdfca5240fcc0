#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
"""The sample alert rules (doc/alerts/ibats.rules.yml), in TAP (make check):
  - the file is Prometheus's rule file structure (groups of named rules,
    each with an expr, a severity, a summary; durations where given);
  - every metric an expr names is one ibats exports, taken from the code
    that writes them (plugin/metrics.c, hostagent/atsd/main/host_metrics.c and
    the stats names of lib/host/atsd_proto.c), or node_exporter's own
    textfile collector metric; every exact label value a selector asks
    for is a string the code writes;
  - the alerts the README promises are there: refused addresses, standby
    out of sync, replication lag (the standby's own, and each standby's
    as the master sees it), absent-port records, a stale textfile, a
    master without the plugin (absent()) or with replication off;
  - no alert fires on one client's misconfiguration alone: a rule on
    refusals (a host's refused addresses, the SM's refused Sets) counts
    them across hosts (count(...) over every instance), never per host.
promtool would check the PromQL itself, but Debian ships it only in the
whole prometheus server (~100 MB): not a test dependency.
"""

import glob
import os
import re
import sys
from tap import check, plan

srcdir = os.environ.get("top_srcdir", ".")
RULES = os.path.join(srcdir, "doc/alerts/ibats.rules.yml")
# node_exporter's textfile collector: the age of each .prom file it reads.
FOREIGN = {"node_textfile_mtime_seconds"}
# What each promised alert must look at.
PROMISED = {
    "refused addresses on many hosts": "ibats_host_addresses",
    "standby out of sync": "ibats_sm_repl_in_sync",
    "replication lag": "ibats_sm_repl_lag_seconds",
    "a standby behind, seen from the master": "ibats_sm_repl_standby_behind",
    "absent-port records": "ibats_sm_ats_records",
    "a stale textfile": "node_textfile_mtime_seconds",
    "a master without the plugin (no series)": "ibats_sm_info",
    "replication off or refused": "ibats_sm_repl_role",
}
# And the ones that must look at no series at all (absent()).
PROMISED_ABSENT = {"IbatsMasterPluginMissing": 'absent(ibats_sm_info{sm_state="master"})'}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}
RULE_KEYS = {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}
# What a client's refusals show as: a host's refused addresses, the SM's
# refused Sets (libosmats(8) LOG LEVELS: WRN at info level).
CLIENT_REFUSALS = re.compile(r'ibats_host_addresses\{[^}]*state="refused"|ibats_sm_sets_refused_total')
# An aggregation over every instance: count(...) with no by clause.
ACROSS_HOSTS = re.compile(r'\bcount\s*\((?![^()]*\)\s*by)')
DURATION = re.compile(r"^([0-9]+(ms|s|m|h|d|w|y))+$")



def read(rel):
    with open(os.path.join(srcdir, rel), encoding="utf-8") as f:
        return f.read()


def exported():
    """The metric names ibats writes, and the string literals of that code
    (label values among them)."""
    # worker.c names OpenSM's SM states, ibats_sm_info's sm_state label.
    files = [os.path.join(srcdir, "plugin/metrics.c"), os.path.join(srcdir, "plugin/worker.c")] + \
        glob.glob(os.path.join(srcdir, "hostagent/atsd/**/*.c"), recursive=True)
    text = "".join(open(f, encoding="utf-8").read() for f in files)
    names = set(re.findall(r'"(ibats_(?:sm|host)_[a-z0-9_]+)"', text))
    # ibats_host_NAME[_total]: one family per stats field, counters with
    # _total (host_metrics.c's table, atsd_proto.c's names).
    kinds = dict(re.findall(r"\[(ATSD_PROTO_S_\w+)\]\s*=\s*\{\s*PROM_(COUNTER|GAUGE)",
                            read("hostagent/atsd/main/host_metrics.c")))
    stats = dict(re.findall(r'\[(ATSD_PROTO_S_\w+)\]\s*=\s*"(\w+)"', read("lib/host/atsd_proto.c")))
    for k, kind in kinds.items():
        if k in stats:
            names.add("ibats_host_" + stats[k] + ("_total" if kind == "COUNTER" else ""))
    literals = set(re.findall(r'"([A-Za-z0-9_]+)"', text + read("lib/host/atsd_proto.c")))
    return names, literals, len(kinds) == len(stats) > 0


def expr_names(expr):
    """Metric names and exact label matchers (label, value) of a PromQL
    expression: identifiers outside strings, selectors, ranges and
    grouping clauses that are neither functions nor keywords."""
    matchers = re.findall(r'(\w+)\s*=\s*"([^"]*)"', " ".join(re.findall(r"\{[^}]*\}", expr)))
    e = re.sub(r'"(\\.|[^"\\])*"', " ", expr)
    e = re.sub(r"\{[^}]*\}|\[[^]]*\]", " ", e)
    e = re.sub(r"\b(on|ignoring|by|without|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        if re.match(r"\s*\(", e[m.end():]) or m.group(0).lower() in KEYWORDS:
            continue
        # A number's exponent or unit (1e3, 5m) is no name.
        if m.start() and (e[m.start() - 1].isdigit() or e[m.start() - 1] == "."):
            continue
        names.add(m.group(0))
    return names, matchers


def balanced(expr):
    depth = {"(": 0, "{": 0, "[": 0}
    pair = {")": "(", "}": "{", "]": "["}
    for c in re.sub(r'"(\\.|[^"\\])*"', "", expr):
        if c in depth:
            depth[c] += 1
        elif c in pair:
            depth[pair[c]] -= 1
            if depth[pair[c]] < 0:
                return False
    return not any(depth.values())


def structure(doc):
    bad, rules, groups, alerts = [], [], set(), set()
    if not isinstance(doc, dict) or set(doc) != {"groups"} or not isinstance(doc["groups"], list):
        return ["the top level is not {groups: [...]}"], rules
    for g in doc["groups"]:
        if not isinstance(g, dict) or not isinstance(g.get("name"), str) or \
                not isinstance(g.get("rules"), list) or not g["rules"]:
            bad.append("a group without a name or rules: %r" % (g,))
            continue
        if g["name"] in groups:
            bad.append("group %s twice" % g["name"])
        groups.add(g["name"])
        for r in g["rules"]:
            name = r.get("alert") if isinstance(r, dict) else None
            if not isinstance(name, str) or not re.match(r"^Ibats[A-Z][A-Za-z]+$", name):
                bad.append("%s: a rule without an alert name Ibats...: %r" % (g["name"], r))
                continue
            if name in alerts:
                bad.append("%s twice" % name)
            alerts.add(name)
            if set(r) - RULE_KEYS:
                bad.append("%s: unknown keys %s" % (name, sorted(set(r) - RULE_KEYS)))
            if not isinstance(r.get("expr"), str) or not balanced(r["expr"]):
                bad.append("%s: no expr, or its brackets do not pair" % name)
                continue
            if "for" in r and not DURATION.match(str(r["for"])):
                bad.append("%s: for %r is no duration" % (name, r["for"]))
            if (r.get("labels") or {}).get("severity") not in ("critical", "warning", "info"):
                bad.append("%s: severity is not critical, warning or info" % name)
            if not (r.get("annotations") or {}).get("summary"):
                bad.append("%s: no summary annotation" % name)
            rules.append(r)
    return bad, rules


def main():
    try:
        import yaml
    except ImportError:
        print("1..0 # SKIP python3-yaml is not installed")
        return 0
    try:
        with open(RULES, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        check("doc/alerts/ibats.rules.yml parses as YAML", [str(e)])
        plan()
        return 0
    check("doc/alerts/ibats.rules.yml parses as YAML", [])
    bad, rules = structure(doc)
    check("... groups of named rules, each with an expr, a severity and a summary",
          bad or ([] if rules else ["no rules"]))

    names, literals, table_ok = exported()
    check("the exported metric names are found in the code (%d)" % len(names),
          [] if table_ok and "ibats_sm_records" in names and "ibats_host_addresses" in names
          else ["host_metrics.c's table or atsd_proto.c's names not found"])
    unknown, values, used = [], [], set()
    for r in rules:
        metrics, matchers = expr_names(r["expr"])
        used |= metrics
        for m in sorted(metrics - names - FOREIGN):
            unknown.append("%s: %s is not a metric ibats exports" % (r["alert"], m))
        for label, value in matchers:
            if label != "file" and value not in literals:
                values.append("%s: %s=\"%s\": the code never writes that value"
                              % (r["alert"], label, value))
    check("every metric the rules name is exported", unknown)
    check("every exact label value they ask for is one the code writes", values)
    check("no alert fires on one client's refusals (they are counted across hosts)",
          ["%s: refusals not counted across hosts: %s" % (r["alert"], r["expr"])
           for r in rules if CLIENT_REFUSALS.search(r["expr"]) and
           (not ACROSS_HOSTS.search(r["expr"]) or re.search(r"\bby\s*\(\s*instance\s*\)", r["expr"]))])
    for what, metric in PROMISED.items():
        check("an alert on %s (%s)" % (what, metric),
              [] if metric in used else ["no expr uses " + metric])
    exprs = {r["alert"]: re.sub(r"\s+", "", r["expr"]) for r in rules}
    for alert, expr in PROMISED_ABSENT.items():
        check("%s fires on no series: %s" % (alert, expr),
              [] if expr in exprs.get(alert, "") else ["%s: %r" % (alert, exprs.get(alert))])
    plan()
    return 0


sys.exit(main())
