#!/usr/bin/env python3
"""Prints abi-cli/src/wheel/manylinux-policy.json: the manylinux policies of the auditwheel
installed beside this Python (the one tests/python/requirements.txt pins), cut to what
`abi wheel` reads: for each policy its name, aliases, priority, the symbol versions it
allows on x86_64 and aarch64, its library set and its forbidden symbols. One policy per
line, so a new auditwheel's changes read as changed lines.

    .venv/bin/python scripts/manylinux-policy.py > abi-cli/src/wheel/manylinux-policy.json

tests/python/test_wheel.py fails when the committed file differs from this output.
"""

import importlib.resources
import json

ARCHES = ("x86_64", "aarch64")
KEYS = ("name", "aliases", "priority", "symbol_versions", "lib_whitelist", "blacklist")


def policies():
    text = (importlib.resources.files("auditwheel.policy") / "manylinux-policy.json").read_text()
    for policy in json.loads(text):
        versions = {arch: policy["symbol_versions"][arch] for arch in ARCHES if arch in policy["symbol_versions"]}
        if policy["name"] == "linux" or not versions:
            continue
        yield {key: (versions if key == "symbol_versions" else policy[key]) for key in KEYS}


def main():
    lines = [json.dumps(policy, separators=(",", ":")) for policy in policies()]
    print("[\n" + ",\n".join(lines) + "\n]")


if __name__ == "__main__":
    main()
