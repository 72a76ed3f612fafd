//! `abi inspect`: every export with its signature as Python reads it, its docs, its IREE
//! record, raw signature and global registry name, an op's rules; the classes; the IREE module and its
//! functions' calling conventions; `--json` prints the model.

use abi_core::schema::OpInfo;
use serde_json::{json, Value};

use crate::read::Listing;

/// The human-readable report.
pub fn text(listing: &Listing) -> String {
    let mut out = format!(
        "{}: {} export(s); metadata {}\n",
        listing.path.display(),
        listing.exports.len(),
        listing.source.describe()
    );
    if !listing.classes.is_empty() {
        out.insert_str(out.len() - 1, &format!("; {} class(es) read from the file's records", listing.classes.len()));
    }
    for e in &listing.exports {
        out.push('\n');
        match &e.metadata {
            Some(m) => out.push_str(&m.python_signature(&e.name)),
            None => out.push_str(&format!("{}(...)  (no metadata published)", e.name)),
        }
        out.push('\n');
        if let Some(doc) = &e.doc {
            for line in doc.split('\n') {
                out.push_str(&format!("    {}\n", printable(line)).replace("    \n", "\n"));
            }
        }
        if let Some(m) = &e.metadata {
            if let Some(r) = &m.iree_abi {
                out.push_str(&format!("    iree.abi: {}\n", r.to_json()));
            }
            if let Some(s) = &m.signature {
                out.push_str(&format!("    signature: {s}\n"));
            }
            if let Some(g) = &m.global {
                out.push_str(&format!("    global: {g}\n"));
            }
            if let Some(op) = &m.op {
                op_text(&mut out, op);
            }
        }
    }
    iree_text(&mut out, listing);
    for c in &listing.classes {
        out.push_str(&format!("\nclass {} (parent {})\n", c.key, c.parent));
        indented(&mut out, &c.doc, "    ");
        for f in &c.fields {
            let access = if f.writable { "writable" } else { "read-only" };
            out.push_str(&format!("    field {}: {} ({access})\n", f.name, f.ty.python()));
            indented(&mut out, &f.doc, "        ");
        }
        for m in &c.methods {
            let kind = if m.is_static { "static method" } else { "method" };
            out.push_str(&format!("    {kind} {}\n", m.metadata.python_signature(&m.name)));
            indented(&mut out, &m.doc, "        ");
        }
    }
    out
}

/// An op's rules: its device, inputs and scalars, each output's rule (`inout` for one
/// written in place), its backward and JAX-order entry point.
fn op_text(out: &mut String, op: &OpInfo) {
    let list = |names: &[String]| if names.is_empty() { "-".to_owned() } else { names.join(", ") };
    out.push_str(&format!("    op ({}): inputs {}; scalars {}\n", op.device, list(&op.inputs), list(&op.scalars)));
    for o in &op.outputs {
        out.push_str(&format!("        {}: {}\n", o.name, o.rule.text()));
    }
    if !op.inout.is_empty() {
        out.push_str(&format!("        in place: {}\n", op.inout.join(", ")));
    }
    if let Some(b) = &op.backward {
        out.push_str(&format!("        backward: {b}\n"));
    }
    if let Some(j) = &op.jax {
        out.push_str(&format!("        jax entry: {j}\n"));
    }
}

/// An op's rules in `--json`: the published `abi.op` object.
fn op_json(op: &OpInfo) -> Value {
    serde_json::from_str(&op.to_json()).unwrap_or(Value::Null)
}

/// Each IREE module with its entry point, then the functions it serves as programs import
/// them (`kit.add_i32`) with their calling conventions; functions without a module say so.
fn iree_text(out: &mut String, listing: &Listing) {
    let iree = &listing.iree;
    if iree.functions.is_empty() && iree.modules.is_empty() {
        return;
    }
    for m in &iree.modules {
        out.push_str(&format!(
            "\nIREE module {}: entry point {}, {} function(s)\n",
            m.name,
            m.entry,
            iree.functions.len()
        ));
    }
    if iree.modules.is_empty() {
        out.push_str(&format!(
            "\nIREE functions without a module: {} function(s), no module entry point (add `abi_core::iree_module!(\"name\");`)\n",
            iree.functions.len()
        ));
    }
    // One module in nearly every library: its name prefixes the functions.
    let prefix = match iree.modules.as_slice() {
        [one] => format!("{}.", one.name),
        _ => String::new(),
    };
    let width = iree.functions.iter().map(|f| f.name.len()).max().unwrap_or(0) + prefix.len();
    for f in &iree.functions {
        out.push_str(&format!("    {:width$}  {}\n", format!("{prefix}{}", f.name), f.cconv));
    }
}

/// `text` with its control characters (a carriage return, an escape sequence a terminal
/// would run) escaped as Rust writes them (`\r`, `\u{1b}`); tabs kept.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => c.to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn indented(out: &mut String, doc: &str, indent: &str) {
    for line in doc.split('\n') {
        out.push_str(format!("{indent}{}", printable(line)).trim_end());
        out.push('\n');
    }
}

/// The `--json` report: per export, the metadata model as published (re-printed by the
/// model) with its Python signature and docs.
pub fn json(listing: &Listing) -> Value {
    let exports: serde_json::Map<String, Value> = listing
        .exports
        .iter()
        .map(|e| {
            let metadata = e
                .metadata
                .as_ref()
                .and_then(|m| serde_json::from_str::<Value>(&m.to_json()).ok())
                .unwrap_or(Value::Null);
            let python = e.metadata.as_ref().map(|m| m.python_signature(&e.name));
            let global = e.metadata.as_ref().and_then(|m| m.global.clone());
            let op = e.metadata.as_ref().and_then(|m| m.op.as_ref()).map_or(Value::Null, op_json);
            (
                e.name.clone(),
                json!({ "python": python, "doc": e.doc, "global": global, "op": op, "metadata": metadata }),
            )
        })
        .collect();
    json!({
        "library": listing.path.display().to_string(),
        "source": listing.source.key(),
        "format": abi_shared::METADATA_VERSION,
        "exports": exports,
        "classes": classes(listing),
        "iree": iree_json(listing),
    })
}

/// The IREE modules (name and entry point), the functions with their calling
/// conventions, and the warning of functions without a module.
fn iree_json(listing: &Listing) -> Value {
    let modules: Vec<Value> =
        listing.iree.modules.iter().map(|m| json!({ "name": m.name, "entry": m.entry })).collect();
    let functions: serde_json::Map<String, Value> =
        listing.iree.functions.iter().map(|f| (f.name.clone(), json!({ "cconv": f.cconv }))).collect();
    json!({ "modules": modules, "functions": functions, "warning": listing.iree_warning() })
}

/// Per class: parent, docs, fields (with their Python types) and methods (with metadata).
fn classes(listing: &Listing) -> Value {
    let classes: serde_json::Map<String, Value> = listing
        .classes
        .iter()
        .map(|c| {
            let fields: Vec<Value> = c
                .fields
                .iter()
                .map(|f| json!({ "name": f.name, "type": f.ty.python(), "writable": f.writable, "doc": f.doc }))
                .collect();
            let methods: serde_json::Map<String, Value> = c
                .methods
                .iter()
                .map(|m| {
                    let metadata = serde_json::from_str::<Value>(&m.metadata.to_json()).unwrap_or(Value::Null);
                    let python = m.metadata.python_signature(&m.name);
                    (
                        m.name.clone(),
                        json!({ "static": m.is_static, "python": python, "doc": m.doc, "metadata": metadata }),
                    )
                })
                .collect();
            (c.key.clone(), json!({ "parent": c.parent, "doc": c.doc, "fields": fields, "methods": methods }))
        })
        .collect();
    Value::Object(classes)
}
