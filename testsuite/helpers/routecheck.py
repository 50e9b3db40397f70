#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check one of nkctl's route tables against the kernel's maps (read with
bpftool, not nkctl).

    routecheck.py DIR HOOK SHOW_JSON [healed]

DIR is the device's pin directory, HOOK its hook (tcx-ingress), SHOW_JSON
the output of `nkctl -j redirect show dev DEV`. Truthful: show's routes are
exactly the trie entries whose owner has a record that lists them, and show's
orphans exactly the others. healed: there are no others. Prints a one-line
summary; exit 1 with the difference otherwise.
"""
import ipaddress
import json
import os
import subprocess
import sys


def dump(pin):
    if not os.path.exists(pin):
        return []
    out = subprocess.run(["bpftool", "-j", "map", "dump", "pinned", pin],
                         check=True, capture_output=True, text=True).stdout
    return [e["formatted"] for e in json.loads(out) if "formatted" in e]


def net(family, addr, length):
    raw = bytes(addr[:4] if family == 4 else addr[:16])
    return str(ipaddress.ip_network((raw, length)))


def main():
    d, hook, show = sys.argv[1], sys.argv[2], json.loads(open(sys.argv[3]).read() or "{}")
    healed = len(sys.argv) > 4 and sys.argv[4] == "healed"
    trie = set()
    for fam in (4, 6):
        for e in dump(f"{d}/{hook}-v{fam}"):
            trie.add((net(fam, e["key"]["addr"], e["key"]["prefixlen"]), e["value"]["ifindex"]))
    records = {}
    for e in dump(f"{d}/{hook}-targets"):
        v = e["value"]
        records[v["ifindex"]] = {net(p["family"], p["addr"], p["len"]) for p in v["p"][:v["n"]]}
    owned = {(p, i) for p, i in trie if p in records.get(i, set())}
    orphans = trie - owned
    shown, shown_orphans = set(), set()
    for r in show.get("redirects", []):
        if r["hook"] != hook:
            continue
        for rt in r["routes"]:
            shown |= {(p, rt["target"]["ifindex"]) for p in rt["prefixes"]}
        shown_orphans |= {(o["prefix"], o["ifindex"]) for o in r.get("orphans", [])}
    bad = []
    if shown != owned:
        bad.append(f"show lists routes {sorted(shown)}, the maps hold {sorted(owned)}")
    if shown_orphans != orphans:
        bad.append(f"show lists orphans {sorted(shown_orphans)}, the maps have {sorted(orphans)}")
    if healed and orphans:
        bad.append(f"routes without a record: {sorted(orphans)}")
    if bad:
        print("; ".join(bad))
        return 1
    print(f"{len(owned)} routes, {len(orphans)} orphans")
    return 0


if __name__ == "__main__":
    sys.exit(main())
