//! `abi inspect`: every export with its signature as Python reads it, its docs, its IREE
//! record, raw signature, global registry name and error type, an op's rules; the fieldless
//! enums the signatures name; the error types and their kinds; the classes; the IREE module and its functions' calling conventions;
//! `--json` prints the model.

use abi_cli::{printable, push_line};
use abi_core::schema::OpInfo;
use serde_json::{json, Value};

use crate::globals::Global;
use crate::read::Listing;

/// The human-readable report. Every line goes through [`push_line`], since what it shows
/// comes from the file: a name holding a line break or an escape sequence prints escaped.
pub fn text(listing: &Listing) -> String {
    let mut out = String::new();
    let mut head = format!(
        "{}: {} export(s); metadata {}",
        listing.path.display(),
        listing.exports.len(),
        listing.source.describe()
    );
    if !listing.classes.is_empty() {
        head.push_str(&format!("; {} class(es) read from the file's records", listing.classes.len()));
    }
    push_line(&mut out, &head);
    for e in &listing.exports {
        push_line(&mut out, "");
        match &e.metadata {
            Some(m) => push_line(&mut out, &m.python_signature(&e.name)),
            None => push_line(&mut out, &format!("{}(...)  (no metadata published)", e.name)),
        }
        if let Some(doc) = &e.doc {
            for line in doc.split('\n') {
                // A blank line of the docs prints empty, not as four spaces.
                let shown = format!("    {line}");
                push_line(&mut out, shown.strip_suffix("    ").unwrap_or(&shown));
            }
        }
        if let Some(m) = &e.metadata {
            if let Some(r) = &m.iree_abi {
                push_line(&mut out, &format!("    iree.abi: {}", r.to_json()));
            }
            if let Some(s) = &m.signature {
                push_line(&mut out, &format!("    signature: {s}"));
            }
            if let Some(g) = &m.global {
                push_line(&mut out, &format!("    global: {g}"));
            }
            if let Some(e) = &m.error {
                push_line(&mut out, &format!("    raises: {e}"));
            }
            if let Some(op) = &m.op {
                op_text(&mut out, op);
            }
        }
    }
    iree_text(&mut out, listing);
    for e in listing.enums() {
        push_line(&mut out, "");
        push_line(&mut out, &format!("enum {} (crosses as a string)", e.name));
        for (variant, name) in e.variants.iter().zip(&e.names) {
            push_line(&mut out, &format!("    {variant} = {}", Value::String(name.clone())));
        }
    }
    for e in listing.data_enums() {
        push_line(&mut out, "");
        push_line(&mut out, &format!("enum {} (crosses as a tuple: its variant's name, then its fields)", e.name));
        for v in &e.variants {
            let fields: Vec<String> = match v.tuple_like() {
                true => v.fields.iter().map(|(_, t)| t.python()).collect(),
                false => v.fields.iter().map(|(n, t)| format!("{n}: {}", t.python())).collect(),
            };
            let fields = if fields.is_empty() { String::new() } else { format!(" ({})", fields.join(", ")) };
            push_line(&mut out, &format!("    {} = {}{fields}", v.ident, Value::String(v.name.clone())));
        }
    }
    for e in &listing.errors {
        push_line(&mut out, "");
        push_line(&mut out, &format!("error type {}", e.name));
        indented(&mut out, &e.doc, "    ");
        for k in &e.kinds {
            push_line(
                &mut out,
                &format!("    {} = {} (Python base {})", k.variant, Value::String(k.kind.clone()), k.base),
            );
            indented(&mut out, &k.doc, "        ");
        }
    }
    for c in &listing.classes {
        push_line(&mut out, "");
        push_line(&mut out, &format!("class {} (parent {})", c.key, c.parent));
        indented(&mut out, &c.doc, "    ");
        for f in &c.fields {
            let access = if f.writable { "writable" } else { "read-only" };
            push_line(&mut out, &format!("    field {}: {} ({access})", f.name, f.ty.python()));
            indented(&mut out, &f.doc, "        ");
        }
        for m in &c.methods {
            let kind = if m.is_static { "static method" } else { "method" };
            push_line(&mut out, &format!("    {kind} {}", m.metadata.python_signature(&m.name)));
            indented(&mut out, &m.doc, "        ");
        }
    }
    out
}

/// An op's rules: its device, inputs and scalars, each output's rule (`inout` for one
/// written in place), its backward and JAX-order entry point.
fn op_text(out: &mut String, op: &OpInfo) {
    let list = |names: &[String]| if names.is_empty() { "-".to_owned() } else { names.join(", ") };
    push_line(out, &format!("    op ({}): inputs {}; scalars {}", op.device, list(&op.inputs), list(&op.scalars)));
    for o in &op.outputs {
        push_line(out, &format!("        {}: {}", o.name, o.rule.text()));
    }
    if !op.inout.is_empty() {
        push_line(out, &format!("        in place: {}", op.inout.join(", ")));
    }
    if let Some(b) = &op.backward {
        push_line(out, &format!("        backward: {b}"));
    }
    if let Some(j) = &op.jax {
        push_line(out, &format!("        jax entry: {j}"));
    }
}

/// An op's rules in `--json`: the published `abi.op` object.
fn op_json(op: &OpInfo) -> Value {
    serde_json::from_str(&op.to_json()).unwrap_or(Value::Null)
}

/// Each IREE module with its entry point, then the functions it serves as programs import
/// them (`kit.add_i32`) with their calling conventions, in a column as wide as the longest
/// name printed (however long: the names come from the file); functions without a module
/// say so.
fn iree_text(out: &mut String, listing: &Listing) {
    let iree = &listing.iree;
    if iree.functions.is_empty() && iree.modules.is_empty() {
        return;
    }
    for m in &iree.modules {
        push_line(out, "");
        push_line(
            out,
            &format!("IREE module {}: entry point {}, {} function(s)", m.name, m.entry, iree.functions.len()),
        );
    }
    if iree.modules.is_empty() {
        push_line(out, "");
        push_line(
            out,
            &format!(
                "IREE functions without a module: {} function(s), no module entry point (add `abi_core::iree_module!(\"name\");`)",
                iree.functions.len()
            ),
        );
    }
    // One module in nearly every library: its name prefixes the functions.
    let prefix = match iree.modules.as_slice() {
        [one] => format!("{}.", one.name),
        _ => String::new(),
    };
    // Measured as printed (escaped: `push_line` leaves printable text as it is).
    let names: Vec<String> = iree.functions.iter().map(|f| printable(&format!("{prefix}{}", f.name))).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (f, name) in iree.functions.iter().zip(&names) {
        let pad = " ".repeat(width - name.chars().count());
        push_line(out, &format!("    {name}{pad}  {}", f.cconv));
    }
}

/// Each line of `doc`, indented, without trailing whitespace (a carriage return kept, as
/// `\r`).
fn indented(out: &mut String, doc: &str, indent: &str) {
    for line in doc.split('\n') {
        push_line(out, printable(&format!("{indent}{line}")).trim_end());
    }
}

/// The globals under `prefix`: each with its signature as Python reads it, or as packed.
pub fn globals_text(prefix: &str, globals: &[Global], after_exports: bool) -> String {
    let mut out = String::new();
    if after_exports {
        push_line(&mut out, "");
    }
    push_line(
        &mut out,
        &format!("{} global function(s) under `{prefix}`, registered by the loaded libraries", globals.len()),
    );
    for g in globals {
        push_line(&mut out, "");
        match &g.metadata {
            Some(m) => push_line(&mut out, &m.python_signature(&g.name)),
            None if g.packed => {
                push_line(&mut out, &format!("{}(*args: Any) -> Any  (packed: no signature published)", g.name))
            }
            None => push_line(&mut out, &format!("{}(*args: Any) -> Any  (no metadata published)", g.name)),
        }
    }
    out
}

/// The `--json` report: per export, the metadata model as published (re-printed by the
/// model) with its Python signature and docs; per global (with `--globals`), the same.
pub fn json(listing: Option<&Listing>, globals: Option<&[Global]>) -> Value {
    let mut out = listing.map_or_else(|| json!({}), exports_json);
    if let Some(globals) = globals {
        let globals: serde_json::Map<String, Value> = globals
            .iter()
            .map(|g| {
                let metadata = g
                    .metadata
                    .as_ref()
                    .and_then(|m| serde_json::from_str::<Value>(&m.to_json()).ok())
                    .unwrap_or(Value::Null);
                let python = g.metadata.as_ref().map(|m| m.python_signature(&g.name));
                (g.name.clone(), json!({ "python": python, "packed": g.packed, "metadata": metadata }))
            })
            .collect();
        out["globals"] = Value::Object(globals);
    }
    out
}

fn exports_json(listing: &Listing) -> Value {
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
        "enums": enums(listing),
        "data_enums": data_enums(listing),
        "errors": errors(listing),
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

/// Each fieldless enum: its name, the names its variants cross as and their Rust
/// identifiers.
fn enums(listing: &Listing) -> Value {
    let enums: Vec<Value> = listing
        .enums()
        .into_iter()
        .map(|e| json!({ "name": e.name, "names": e.names, "variants": e.variants }))
        .collect();
    Value::Array(enums)
}

/// Each enum with data: its name, and its variants (Rust identifier, the name it crosses
/// as, its fields with their Python types).
fn data_enums(listing: &Listing) -> Value {
    let enums: Vec<Value> = listing
        .data_enums()
        .into_iter()
        .map(|e| {
            let variants: Vec<Value> = e
                .variants
                .iter()
                .map(|v| {
                    let fields: Vec<Value> =
                        v.fields.iter().map(|(n, t)| json!({ "name": n, "type": t.python() })).collect();
                    json!({ "variant": v.ident, "name": v.name, "fields": fields })
                })
                .collect();
            json!({ "name": e.name, "variants": variants })
        })
        .collect();
    Value::Array(enums)
}

/// Each error type: its name, docs, and kinds (variant, kind, base, docs).
fn errors(listing: &Listing) -> Value {
    let errors: Vec<Value> = listing
        .errors
        .iter()
        .map(|e| {
            let kinds: Vec<Value> = e
                .kinds
                .iter()
                .map(|k| json!({ "variant": k.variant, "kind": k.kind, "base": k.base, "doc": k.doc }))
                .collect();
            json!({ "name": e.name, "doc": e.doc, "kinds": kinds })
        })
        .collect();
    Value::Array(errors)
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use abi_core::schema::{Class, IreeFunctionRecord, IreeModule, IreeRecords};

    use crate::read::{Export, Listing, Source};

    fn listing(exports: Vec<Export>, classes: Vec<Class>, iree: IreeRecords) -> Listing {
        Listing { path: PathBuf::from("lib.so"), source: Source::Data, exports, classes, errors: Vec::new(), iree }
    }

    #[test]
    fn names_print_escaped_one_line_each_in_a_column_of_any_width() {
        let function = |name: &str| IreeFunctionRecord { name: name.into(), cconv: "0i_i\n\u{1b}".into() };
        let iree = IreeRecords {
            modules: vec![IreeModule { name: "k\u{2028}".into(), entry: "create\r".into() }],
            functions: vec![function("add"), function(&"f".repeat(65_536)), function("g\u{1b}[2J\nx")],
        };
        let class = Class {
            key: "k.C\n".into(),
            parent: "ffi.Object\u{1b}]0;t\u{7}".into(),
            doc: String::new(),
            fields: Vec::new(),
            methods: Vec::new(),
        };
        let export = Export { name: "e\u{0}".into(), metadata: None, doc: None };
        let text = super::text(&listing(vec![export], vec![class], iree));
        // Padded by hand: `format!` pads to at most 65,535 characters.
        let width = "k\\u{2028}.".len() + 65_536;
        let row = |name: &str| format!("    {name}{}  0i_i\\n\\u{{1b}}", " ".repeat(width - name.len()));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..6],
            [
                "lib.so: 1 export(s); metadata read from the file's data; no library code ran; 1 class(es) read from the file's records",
                "",
                "e\\u{0}(...)  (no metadata published)",
                "",
                "IREE module k\\u{2028}: entry point create\\r, 3 function(s)",
                &row("k\\u{2028}.add"),
            ]
        );
        assert_eq!(lines[6].len(), 4 + width + 2 + "0i_i\\n\\u{1b}".len());
        assert_eq!(lines[7], row("k\\u{2028}.g\\u{1b}[2J\\nx"));
        assert_eq!(lines[8..], ["", "class k.C\\n (parent ffi.Object\\u{1b}]0;t\\u{7})", ""]);
    }

    #[test]
    fn docs_print_as_before_blank_lines_empty_and_carriage_returns_escaped() {
        let export = Export { name: "e".into(), metadata: None, doc: Some("a\r\n\n\tb    \nc\u{1b}".into()) };
        let class = Class {
            key: "k.C".into(),
            parent: "ffi.Object".into(),
            doc: "a\r\n\nb  ".into(),
            fields: Vec::new(),
            methods: Vec::new(),
        };
        let text = super::text(&listing(vec![export], vec![class], IreeRecords::default()));
        let after_head = text.split_once('\n').unwrap().1;
        assert_eq!(
            after_head,
            "\ne(...)  (no metadata published)\n    a\\r\n\n    \tb\n    c\\u{1b}\n\nclass k.C (parent ffi.Object)\n    a\\r\n\n    b\n"
        );
    }
}
