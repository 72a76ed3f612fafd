#!/usr/bin/env python3
"""Writes one build-bench crate: N functions cycling six signature shapes (N = 1: the first
shape alone, the base of scripts/bench-build.sh's marginal measures), exported either
through `#[abi_core::export_fn]` (variant `abi`) or PyO3 (`#[pyfunction]` + one `#[pymodule]`).

    gen.py VARIANT N DIR --abi-core PATH [--pyo3-version X.Y.Z] [--lockfile Cargo.lock]

The crate (Cargo.toml from templates/, src/lib.rs) is written into DIR. Files are rewritten
only when their content changes, so regenerating does not invalidate cargo's fingerprints.
"""
import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The six shapes: (parameters, return type, body). `{i}` is the function's index, so every
# body is distinct (no function can be merged with another).
SHAPES = [
    ("a: i64, b: i64", "i64", "a.wrapping_mul({i}).wrapping_add(b)"),
    ("x: f64, y: f64", "f64", "x * y + {i}.0"),
    ("s: &str", "String", 'format!("{{s}}-{i}")'),
    ("v: Vec<i64>", "i64", "v.iter().sum::<i64>() + {i}"),
    ("x: Option<i64>", "i64", "x.unwrap_or({i})"),
    ("a: i32, b: bool, c: f32", "f64", "if b {{ f64::from(a) + f64::from(c) }} else {{ {i}.0 }}"),
]


def functions(n):
    for i in range(n):
        params, ret, body = SHAPES[i % len(SHAPES)]
        yield i, params, ret, body.format(i=i)


def abi_source(n):
    out = [
        f"//! Generated: {n} exports through `#[abi_core::export_fn]` (benches/build/gen.py).\n",
        # Linked even with no export, as PyO3's `#[pymodule]` links PyO3's: the N = 0 crate
        # then carries abi-core's runtime, a fixed cost, not one per export.
        "\nextern crate abi_core;\n",
    ]
    for i, params, ret, body in functions(n):
        out.append(f"\n/// Function {i}.\n#[abi_core::export_fn]\npub fn fn_{i}({params}) -> {ret} {{\n    {body}\n}}\n")
    return "".join(out)


def pyo3_source(n, module):
    out = [
        f"//! Generated: the same {n} functions through PyO3 (benches/build/gen.py).\n",
        "#![allow(clippy::useless_conversion)]\n\nuse pyo3::prelude::*;\n",
    ]
    for i, params, ret, body in functions(n):
        out.append(f"\n/// Function {i}.\n#[pyfunction]\npub fn fn_{i}({params}) -> {ret} {{\n    {body}\n}}\n")
    out.append(f"\n#[pymodule]\nfn {module}(m: &Bound<'_, PyModule>) -> PyResult<()> {{\n")
    for i in range(n):
        out.append(f"    m.add_function(wrap_pyfunction!(fn_{i}, m)?)?;\n")
    out.append("    let _ = m;\n    Ok(())\n}\n")
    return "".join(out)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant", choices=["abi", "pyo3"])
    ap.add_argument("n", type=int)
    ap.add_argument("dir")
    ap.add_argument("--abi-core", required=True)
    ap.add_argument("--pyo3-version", default="")
    ap.add_argument("--lockfile", default="")
    args = ap.parse_args()
    if args.variant == "pyo3" and not args.pyo3_version:
        sys.exit("gen.py: --pyo3-version is required for the pyo3 variant")
    name = f"bench_{args.variant}_n{args.n}"
    with open(os.path.join(HERE, "templates", f"{args.variant}.Cargo.toml"), encoding="utf-8") as f:
        toml = f.read()
    for key, value in {"@NAME@": name, "@N@": str(args.n), "@ABI_CORE@": args.abi_core,
                       "@PYO3_VERSION@": args.pyo3_version}.items():
        toml = toml.replace(key, value)
    src = abi_source(args.n) if args.variant == "abi" else pyo3_source(args.n, name)
    write_if_changed(os.path.join(args.dir, "Cargo.toml"), toml)
    write_if_changed(os.path.join(args.dir, "src", "lib.rs"), src)
    lock = os.path.join(args.dir, "Cargo.lock")
    # Start from the repository's lockfile so abi-core's dependencies are the versions it is
    # tested with (cargo drops what this crate does not use, once).
    if args.variant == "abi" and args.lockfile and os.path.exists(args.lockfile) and not os.path.exists(lock):
        shutil.copyfile(args.lockfile, lock)


if __name__ == "__main__":
    main()
