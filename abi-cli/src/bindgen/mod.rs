//! `abi bindgen`: Rust bindings to a library's exports and, with `--globals`, to the global
//! functions its loading registers: `#[abi_core::import]` declarations (bind-checked
//! against the same metadata they were written from), typed handles for the object classes
//! their signatures name (fields and methods from reflection), and derived structs and
//! enums (fieldless, and with data: tagged tuples, which register nothing). The
//! output is deterministic (items sorted by name) and, where `rustfmt` is on PATH,
//! formatted by it.

mod manifest;
mod names;
mod rust_type;

use abi_cli::printable;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use abi_core::schema::{Class, Metadata, TypeSchema};

use crate::globals::Global;
use crate::read::Listing;
use names::{after_prefix, ident, unique, Role};
use rust_type::{Field, Fields, Side, Types, Variant};

/// What to write.
pub struct Request<'a> {
    /// The library whose exports are bound (none: globals only).
    pub listing: Option<&'a Listing>,
    /// The globals bound, with the prefix they were read under.
    pub globals: Option<(&'a str, &'a [Global])>,
    /// The object classes known by key (from the file's records or from reflection).
    pub classes: &'a dyn Fn(&str) -> Option<Class>,
    /// The command line, recorded in the header.
    pub command: &'a str,
}

/// One declaration to write.
struct Item {
    abi_name: String,
    rust_name: String,
    doc: Option<String>,
    metadata: Option<Metadata>,
    packed: bool,
}

/// The bindings as one Rust module's source (inner docs first).
pub fn module(req: &Request<'_>) -> Result<String, String> {
    let mut types = Types::default();
    let mut body = String::new();
    let globals_set = req.globals.map(|(prefix, _)| match prefix.trim_end_matches('.') {
        "" => "Globals".to_owned(),
        named => format!("{}Globals", ident(named, Role::Type)),
    });
    // Both import sets' names first: no handle or struct may take one.
    types.reserved.extend(globals_set.clone());
    if let Some(listing) = req.listing {
        let items: Vec<Item> = listing
            .exports
            .iter()
            .map(|e| Item {
                abi_name: e.name.clone(),
                rust_name: String::new(),
                doc: e.doc.clone(),
                metadata: e.metadata.clone(),
                packed: false,
            })
            .collect();
        let stem = listing.path.file_stem().and_then(|s| s.to_str()).unwrap_or("library");
        let set = ident(stem.strip_prefix("lib").unwrap_or(stem), Role::Type);
        let what = format!("The exports of `{}`.", file_name(&listing.path));
        types.reserved.insert(set.clone());
        import_set(&mut body, &mut types, &set, &what, items, "");
    }
    if let Some((prefix, globals)) = req.globals {
        let items: Vec<Item> = globals
            .iter()
            .map(|g| Item {
                abi_name: g.name.clone(),
                rust_name: String::new(),
                doc: None,
                metadata: g.metadata.clone(),
                packed: g.packed,
            })
            .collect();
        let set = globals_set.clone().unwrap_or_default();
        let what = format!("The global functions under `{prefix}`.");
        import_set(&mut body, &mut types, &set, &what, items, prefix);
    }
    // Handles may name more classes (a method returning another class): until none is new.
    let mut written = std::collections::BTreeSet::new();
    let mut handles_text = String::new();
    loop {
        let pending: Vec<(String, String)> =
            types.handles.iter().filter(|(k, _)| !written.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        if pending.is_empty() {
            break;
        }
        for (key, name) in pending {
            written.insert(key.clone());
            handle(&mut handles_text, &mut types, &key, &name, (req.classes)(&key));
        }
    }
    // Structs and enums map their fields when first named, so every type they hold is
    // named by now (handles included: a struct's object field is written above).
    let mut structs_text = String::new();
    for (name, fields) in &types.structs {
        derived_struct(&mut structs_text, name, fields, derives(&types, fields.items.iter()));
    }
    for (name, (names, variants)) in &types.enums {
        derived_enum(&mut structs_text, name, names, variants);
    }
    for (name, variants) in &types.tagged {
        derived_tagged(
            &mut structs_text,
            name,
            variants,
            derives(&types, variants.items.iter().flat_map(|v| &v.fields)),
        );
    }
    for error in req.listing.map_or(&[][..], |l| &l.errors) {
        let name = types.error_kinds_name(&error.name);
        error_kinds(&mut structs_text, &name, error);
    }
    let mut out = String::new();
    let from = match (req.listing, req.globals) {
        (Some(l), Some((p, _))) => format!("`{}` and the globals under `{p}`", file_name(&l.path)),
        (Some(l), None) => format!("`{}`", file_name(&l.path)),
        (None, Some((p, _))) => format!("the globals under `{p}`"),
        (None, None) => return Err("nothing to bind: name a library, or --globals".to_owned()),
    };
    // Names and paths from a file go into comments escaped: a line break would end the
    // comment and make the rest Rust code.
    let from = printable(&from);
    writeln!(out, "//! Rust bindings to {from}, written by `abi bindgen` from the metadata they publish:").unwrap();
    writeln!(out, "//! every call is checked against it when bound. Do not edit; regenerate with").unwrap();
    writeln!(out, "//! `{}`.", printable(req.command)).unwrap();
    out.push_str(&body);
    out.push_str(&handles_text);
    out.push_str(&structs_text);
    Ok(format_source(out))
}

/// Writes one `#[abi_core::import]` block.
fn import_set(out: &mut String, types: &mut Types, set: &str, what: &str, mut items: Vec<Item>, prefix: &str) {
    items.sort_by(|a, b| a.abi_name.cmp(&b.abi_name));
    let rust: Vec<String> = items.iter().map(|i| ident(after_prefix(&i.abi_name, prefix), Role::Function)).collect();
    for (item, name) in items.iter_mut().zip(unique(rust)) {
        item.rust_name = name;
    }
    writeln!(out, "\n/// {}\n#[abi_core::import({set})]\nextern \"C\" {{", printable(what)).unwrap();
    for item in &items {
        declaration(out, types, item);
    }
    out.push_str("}\n");
}

fn declaration(out: &mut String, types: &mut Types, item: &Item) {
    types.notes.clear();
    let typed = item.metadata.as_ref().and_then(|m| m.type_schema.as_ref().map(|f| (m, f)));
    let (params, ret, unchecked) = match typed {
        Some((meta, f)) => {
            let names = unique(meta.params().iter().map(|(n, _)| ident(n, Role::Param)).collect());
            let params: Vec<String> =
                names.iter().zip(&f.params).map(|(n, t)| format!("{n}: {}", types.rust(t, Side::Param))).collect();
            (params, ret_text(types, &f.ret), false)
        }
        None => (vec![format!("arg0: {}", "abi_core::Any")], " -> abi_core::Any".to_owned(), true),
    };
    doc_lines(out, "    ", item.doc.as_deref());
    if unchecked {
        let why = match item.packed {
            true => "it is registered as packed (no signature published)",
            false => "it publishes no signature",
        };
        if item.doc.is_some() {
            out.push_str("    ///\n");
        }
        writeln!(out, "    /// Unchecked: {why}; declared with one `Any` argument (call the function itself").unwrap();
        writeln!(out, "    /// for other counts).").unwrap();
    }
    for note in &types.notes {
        writeln!(out, "    // abi bindgen: {}", printable(note)).unwrap();
    }
    let mut opts = Vec::new();
    if item.rust_name != item.abi_name {
        opts.push(format!("name = {}", rust_string(&item.abi_name)));
    }
    if unchecked {
        opts.push("unchecked".to_owned());
    }
    if !opts.is_empty() {
        writeln!(out, "    #[abi({})]", opts.join(", ")).unwrap();
    }
    if params.len() > 7 {
        out.push_str("    #[allow(clippy::too_many_arguments)]\n");
    }
    writeln!(out, "    fn {}({}){ret};", item.rust_name, params.join(", ")).unwrap();
}

fn ret_text(types: &mut Types, ret: &TypeSchema) -> String {
    match ret {
        TypeSchema::None => String::new(),
        r => format!(" -> {}", types.rust(r, Side::Owned)),
    }
}

/// A typed handle for the class `key`: its fields' getters (and setters of writable ones)
/// and its methods, from `class` when known.
fn handle(out: &mut String, types: &mut Types, key: &str, name: &str, class: Option<Class>) {
    out.push_str("\nabi_core::reflected_type! {\n");
    match class.as_ref().map(|c| c.doc.trim()).filter(|d| !d.is_empty()) {
        Some(doc) => doc_lines(out, "    ", Some(doc)),
        None => writeln!(out, "    /// An object of `{}`.", printable(key)).unwrap(),
    }
    writeln!(out, "    pub struct {name} = {};\n}}", rust_string(key)).unwrap();
    let Some(class) = class else {
        writeln!(
            out,
            "// abi bindgen: `{}` is not registered in this process: no fields or methods were read.",
            printable(key)
        )
        .unwrap();
        return;
    };
    // Members in name order; getters, setters and methods share one scope of names.
    let mut fields = class.fields.clone();
    fields.sort_by(|a, b| a.name.cmp(&b.name));
    let mut methods = class.methods.clone();
    methods.sort_by(|a, b| a.name.cmp(&b.name));
    // The constructor (`__ffi_init__`, a static method returning the object) becomes `new`.
    let init = methods.iter().find(|m| m.name == "__ffi_init__" && m.metadata.type_schema.is_some()).cloned();
    methods.retain(|m| !m.name.starts_with("__"));
    let mut wanted: Vec<String> = init.iter().map(|_| "new".to_owned()).collect();
    for f in &fields {
        wanted.push(ident(&f.name, Role::Field));
        if f.writable {
            wanted.push(format!("set_{}", ident(&f.name, Role::Field)));
        }
    }
    wanted.extend(methods.iter().map(|m| ident(&m.name, Role::Function)));
    let mut names = unique(wanted).into_iter();
    if fields.is_empty() && methods.is_empty() && init.is_none() {
        return;
    }
    let init = init.map(|mut m| {
        // It returns the new object: this handle.
        if let Some(f) = m.metadata.type_schema.as_mut() {
            f.ret = TypeSchema::Named { key: key.to_owned(), args: Vec::new() };
        }
        m.doc = format!("Makes a `{key}` with the type's constructor (`__ffi_init__`).");
        m
    });
    writeln!(out, "\nimpl {name} {{").unwrap();
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !std::mem::take(&mut first) {
            out.push('\n');
        }
    };
    if let Some(init) = &init {
        sep(out);
        method(out, types, key, init, &names.next().unwrap_or_default());
    }
    for f in &fields {
        types.notes.clear();
        let ty = types.rust(&f.ty, Side::Owned);
        let field = rust_string(&f.name);
        sep(out);
        doc_lines(out, "    ", Some(if f.doc.is_empty() { &f.name } else { &f.doc }));
        notes(out, types);
        let getter = names.next().unwrap_or_default();
        writeln!(out, "    pub fn {getter}(&self) -> abi_core::Result<{ty}> {{").unwrap();
        writeln!(out, "        abi_core::Reflected::get(self, {field})\n    }}").unwrap();
        if f.writable {
            sep(out);
            let setter = names.next().unwrap_or_default();
            writeln!(out, "    /// Sets `{}`.", printable(&f.name)).unwrap();
            writeln!(out, "    pub fn {setter}(&self, value: {ty}) -> abi_core::Result<()> {{").unwrap();
            writeln!(out, "        abi_core::Reflected::set(self, {field}, value)\n    }}").unwrap();
        }
    }
    for m in &methods {
        sep(out);
        method(out, types, key, m, &names.next().unwrap_or_default());
    }
    out.push_str("}\n");
}

/// One method of a handle, named `rust`: a constructor, a static method, or an instance
/// method (the handle passes the object).
fn method(out: &mut String, types: &mut Types, key: &str, m: &abi_core::schema::Method, rust: &str) {
    types.notes.clear();
    doc_lines(out, "    ", Some(if m.doc.is_empty() { &m.name } else { &m.doc }));
    let Some(f) = &m.metadata.type_schema else {
        writeln!(out, "    /// Packed (no signature published): takes and returns `Any`.").unwrap();
        writeln!(out, "    pub fn {rust}(&self, args: &[abi_core::AnyView<'_>]) -> abi_core::Result<abi_core::Any> {{")
            .unwrap();
        writeln!(out, "        abi_core::Reflected::call(self, {}, args)\n    }}", rust_string(&m.name)).unwrap();
        return;
    };
    // An instance method's schema lists the object first; the handle passes it.
    let skip = usize::from(!m.is_static && f.params.first().is_some_and(|p| is_self(p, key)));
    let arg_names = unique(m.metadata.params().iter().skip(skip).map(|(n, _)| ident(n, Role::Param)).collect());
    let params: Vec<(String, String)> =
        arg_names.into_iter().zip(f.params.iter().skip(skip)).map(|(n, t)| (n, types.rust(t, Side::Owned))).collect();
    let ret = match &f.ret {
        TypeSchema::None => "()".to_owned(),
        r => types.rust(r, Side::Owned),
    };
    notes(out, types);
    let list: Vec<String> = params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    let receiver = if m.is_static { "" } else { "&self" };
    let sig = [receiver.to_owned()].into_iter().chain(list).filter(|s| !s.is_empty()).collect::<Vec<_>>();
    if sig.len() > 7 {
        out.push_str("    #[allow(clippy::too_many_arguments)]\n");
    }
    writeln!(out, "    pub fn {rust}({}) -> abi_core::Result<{ret}> {{", sig.join(", ")).unwrap();
    for (n, _) in &params {
        writeln!(out, "        let {n} = abi_core::Any::from_value({n})?;").unwrap();
    }
    let views: Vec<String> = params.iter().map(|(n, _)| format!("{n}.view()")).collect();
    if m.is_static {
        // A static method needs no object: it is called through the type's record.
        writeln!(
            out,
            "        abi_core::Reflected::call_static({}, {}, &[{}])",
            rust_string(key),
            rust_string(&m.name),
            views.join(", ")
        )
        .unwrap();
    } else {
        writeln!(out, "        abi_core::Reflected::call(self, {}, &[{}])", rust_string(&m.name), views.join(", "))
            .unwrap();
    }
    out.push_str("    }\n");
}

fn is_self(t: &TypeSchema, key: &str) -> bool {
    match t {
        TypeSchema::Named { key: k, .. } => k == key,
        TypeSchema::Object => true,
        _ => false,
    }
}

fn notes(out: &mut String, types: &Types) {
    note_lines(out, "    ", &types.notes);
}

fn note_lines(out: &mut String, indent: &str, notes: &[String]) {
    for note in notes {
        writeln!(out, "{indent}// abi bindgen: {}", printable(note)).unwrap();
    }
}

/// The traits a derived struct or enum with data `fields` derives besides its own: `PartialEq`
/// only when every field has it.
fn derives<'a>(types: &Types, mut fields: impl Iterator<Item = &'a Field>) -> &'static str {
    match fields.all(|f| types.comparable(&f.rust)) {
        true => "Clone, Debug, PartialEq",
        false => "Clone, Debug",
    }
}

/// A derived struct of an abi library, with its field names.
fn derived_struct(out: &mut String, name: &str, fields: &Fields<Field>, derives: &str) {
    let names = unique(fields.items.iter().map(|f| ident(&f.key, Role::Field)).collect());
    writeln!(out, "\n/// The struct `{name}`, as the library declares it.").unwrap();
    note_lines(out, "", &fields.notes);
    writeln!(out, "#[derive({derives}, abi_core::AbiStruct)]\npub struct {name} {{").unwrap();
    for (f, n) in fields.items.iter().zip(&names) {
        writeln!(out, "    /// `{n}`.").unwrap();
        field_rename(out, "    ", f, n);
        writeln!(out, "    pub {n}: {},", f.rust).unwrap();
    }
    out.push_str("}\n");
}

/// `#[abi(rename = "...")]` above the field `rust` when its key is another name, so that it
/// keeps the library's key; a key the derives refuse (only letters, digits and `_` make one)
/// is noted instead, the field keeping its Rust name.
fn field_rename(out: &mut String, indent: &str, field: &Field, rust: &str) {
    if field.key == rust {
        return;
    }
    if !field.key.is_empty() && field.key.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
        writeln!(out, "{indent}#[abi(rename = {})]", rust_string(&field.key)).unwrap();
    } else {
        let key = printable(&rust_string(&field.key));
        writeln!(
            out,
            "{indent}// abi bindgen: the key {key} is no key a derive takes (letters, digits, `_`): keyed `{rust}`"
        )
        .unwrap();
    }
}

/// Writes a fieldless enum: each variant by its Rust identifier, renamed to the name it
/// crosses as.
fn derived_enum(out: &mut String, name: &str, names: &[String], variants: &[String]) {
    let idents = unique(variants.iter().map(|v| ident(v, Role::Type)).collect());
    writeln!(out, "\n/// The enum `{name}`, as the library declares it: each value crosses as its name.").unwrap();
    writeln!(out, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, abi_core::AbiEnum)]\npub enum {name} {{").unwrap();
    for (variant, wire) in idents.iter().zip(names) {
        writeln!(out, "    /// {}.", printable(&rust_string(wire))).unwrap();
        writeln!(out, "    #[abi(rename = {})]\n    {variant},", rust_string(wire)).unwrap();
    }
    out.push_str("}\n");
}

/// Writes an enum with data: each variant by its Rust identifier, renamed to the name it
/// crosses as, with its fields (named, positional, or none) keeping their keys.
fn derived_tagged(out: &mut String, name: &str, variants: &Fields<Variant>, derives: &str) {
    let idents = unique(variants.items.iter().map(|v| ident(&v.ident, Role::Type)).collect());
    writeln!(out, "\n/// The enum with data `{name}`, as the library declares it: a value crosses as a tuple of its")
        .unwrap();
    writeln!(out, "/// variant's name then its fields, and registers nothing in the process (no type keys).").unwrap();
    note_lines(out, "", &variants.notes);
    writeln!(out, "#[derive({derives}, abi_core::AbiEnum)]\npub enum {name} {{").unwrap();
    for (variant, v) in idents.iter().zip(&variants.items) {
        writeln!(out, "    /// {}.", printable(&rust_string(&v.name))).unwrap();
        writeln!(out, "    #[abi(rename = {})]", rust_string(&v.name)).unwrap();
        if v.fields.is_empty() {
            writeln!(out, "    {variant},").unwrap();
        } else if v.tuple_like {
            let types: Vec<&str> = v.fields.iter().map(|f| f.rust.as_str()).collect();
            writeln!(out, "    {variant}({}),", types.join(", ")).unwrap();
        } else {
            writeln!(out, "    {variant} {{").unwrap();
            let names = unique(v.fields.iter().map(|f| ident(&f.key, Role::Field)).collect());
            for (f, n) in v.fields.iter().zip(&names) {
                writeln!(out, "        /// `{}`.", printable(&f.key)).unwrap();
                field_rename(out, "        ", f, n);
                writeln!(out, "        {n}: {},", f.rust).unwrap();
            }
            writeln!(out, "    }},").unwrap();
        }
    }
    out.push_str("}\n");
}

/// Writes the kinds of a derived error type as a Rust enum a caller can `match`, with `of`
/// naming the kind of an error a call raised.
fn error_kinds(out: &mut String, name: &str, error: &abi_core::schema::ErrorType) {
    let idents = unique(error.kinds.iter().map(|k| ident(&k.variant, Role::Type)).collect());
    writeln!(out, "\n/// The error kinds of `{}`, as the library declares them.", printable(&error.name)).unwrap();
    if !error.doc.trim().is_empty() {
        out.push_str("///\n");
        doc_lines(out, "", Some(&error.doc));
    }
    writeln!(out, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum {name} {{").unwrap();
    for (variant, k) in idents.iter().zip(&error.kinds) {
        writeln!(out, "    /// {}.", printable(&rust_string(&k.kind))).unwrap();
        doc_lines(out, "    ", Some(&k.doc));
        writeln!(out, "    {variant},").unwrap();
    }
    writeln!(out, "}}\n\nimpl {name} {{").unwrap();
    writeln!(out, "    /// The kind of `error`, when it is one of these.").unwrap();
    writeln!(out, "    pub fn of(error: &abi_core::Error) -> Option<{name}> {{\n        match error.kind() {{")
        .unwrap();
    for (variant, k) in idents.iter().zip(&error.kinds) {
        writeln!(out, "            {} => Some({name}::{variant}),", rust_string(&k.kind)).unwrap();
    }
    out.push_str("            _ => None,\n        }\n    }\n}\n");
}

fn doc_lines(out: &mut String, indent: &str, doc: Option<&str>) {
    let Some(doc) = doc.map(str::trim_end).filter(|d| !d.trim().is_empty()) else { return };
    for line in doc.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            writeln!(out, "{indent}///").unwrap();
        } else {
            // Docs come from C++ and Python: fence nothing, but keep rustdoc from reading
            // indented lines as Rust code blocks.
            writeln!(out, "{indent}/// {}", printable(&line.replace("```", "'''"))).unwrap();
        }
    }
}

/// A Rust string literal of `s` (escaped as Rust's Debug writes it).
fn rust_string(s: &str) -> String {
    format!("{s:?}")
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `source` through `rustfmt` when it is on PATH (edition 2021, its default settings: no
/// `rustfmt.toml` where the command runs changes the output); as written otherwise.
fn format_source(source: String) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let no_config = if cfg!(windows) { "NUL" } else { "/dev/null" };
    let child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout", "--quiet", "--config-path", no_config])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return source };
    if let Some(mut stdin) = child.stdin.take() {
        if stdin.write_all(source.as_bytes()).is_err() {
            return source;
        }
    }
    match child.wait_with_output() {
        Ok(out) if out.status.success() && !out.stdout.is_empty() => String::from_utf8(out.stdout).unwrap_or(source),
        _ => source,
    }
}

/// Checks `--crate NAME --abi-core DEPENDENCY` before anything is loaded or written: a
/// name cargo would refuse, or one that is its dependency's, and a dependency cargo cannot
/// read are one line.
pub fn check_crate(name: &str, dependency: &str) -> Result<(), String> {
    manifest::check_name(name)?;
    manifest::dependency(dependency).map(drop)
}

/// Writes the module to `out` (a file), or a crate named `name` into `out` (a folder:
/// `Cargo.toml` with `abi-core = <dependency>`, `src/lib.rs`); returns the files written.
pub fn write(source: &str, out: &Path, krate: Option<(&str, &str)>) -> Result<Vec<PathBuf>, String> {
    let write = |path: &Path, text: &str| -> Result<PathBuf, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path.to_owned())
    };
    match krate {
        None => Ok(vec![write(out, source)?]),
        Some((name, dependency)) => {
            manifest::check_name(name)?;
            let dependency = manifest::dependency(dependency)?;
            let manifest = format!(
                "[package]\nname = {name:?}\nversion = \"0.1.0\"\nedition = \"2021\"\ndescription = \"Rust bindings written by abi bindgen\"\n\n[dependencies]\nabi-core = {dependency}\n"
            );
            Ok(vec![write(&out.join("Cargo.toml"), &manifest)?, write(&out.join("src").join("lib.rs"), source)?])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, metadata: Option<&str>, packed: bool) -> Item {
        Item {
            abi_name: name.to_owned(),
            rust_name: ident(name, Role::Function),
            doc: None,
            metadata: metadata.map(|m| Metadata::parse(m).unwrap()),
            packed,
        }
    }

    #[test]
    fn an_unmappable_item_is_declared_with_any_and_a_comment_never_dropped() {
        let int = r#"{\"type\":\"int\"}"#;
        let meta = format!(
            r#"{{"type_schema":"{{\"type\":\"ffi.Function\",\"named_args\":{{\"return\":[{int}],\"params\":[{{\"type\":\"Variant\",\"args\":[{int},{int},{int},{int},{int}]}}]}}}}"}}"#
        );
        let mut out = String::new();
        declaration(&mut out, &mut Types::default(), &item("pick", Some(&meta), false));
        assert_eq!(
            out,
            "    // abi bindgen: `Union[int, int, int, int, int]` is declared `Any` (checked per call): abi_core's \
             Variant types hold 2 to 4 members\n    fn pick(arg0: abi_core::Any) -> i64;\n"
        );
    }

    /// An enum with data is written with its variants renamed to their names, named fields
    /// keeping their keys (a key that is no Rust identifier renamed back), positional fields
    /// and bare unit variants; a field with no Rust type is `Any`, noted above the enum.
    #[test]
    fn an_enum_with_data_is_written_with_the_names_and_keys_the_library_publishes() {
        use abi_core::schema::TaggedVariant;
        let variant = |name: &str, ident: &str, fields: Vec<(&str, TypeSchema)>| TaggedVariant {
            name: name.to_owned(),
            ident: ident.to_owned(),
            fields: fields.into_iter().map(|(k, t)| (k.to_owned(), t)).collect(),
        };
        let five = TypeSchema::Variant(vec![TypeSchema::Int(None); 5]);
        let e = TypeSchema::Tagged {
            name: "Token".into(),
            variants: vec![
                variant(
                    "word",
                    "Word",
                    vec![("type", TypeSchema::Str), ("textLen", TypeSchema::Int(None)), ("a-b", TypeSchema::Bool)],
                ),
                variant("pair", "Pair", vec![("0", TypeSchema::Float(None)), ("1", five)]),
                variant("end-of-input", "EndOfInput", vec![]),
            ],
        };
        let mut types = Types::default();
        assert_eq!(types.rust(&e, Side::Param), "Token");
        let mut out = String::new();
        let token = &types.tagged["Token"];
        derived_tagged(&mut out, "Token", token, derives(&types, token.items.iter().flat_map(|v| &v.fields)));
        assert_eq!(
            out,
            r#"
/// The enum with data `Token`, as the library declares it: a value crosses as a tuple of its
/// variant's name then its fields, and registers nothing in the process (no type keys).
// abi bindgen: `Union[int, int, int, int, int]` is declared `Any` (checked per call): abi_core's Variant types hold 2 to 4 members
#[derive(Clone, Debug, abi_core::AbiEnum)]
pub enum Token {
    /// "word".
    #[abi(rename = "word")]
    Word {
        /// `type`.
        #[abi(rename = "type")]
        type_: String,
        /// `textLen`.
        #[abi(rename = "textLen")]
        text_len: i64,
        /// `a-b`.
        // abi bindgen: the key "a-b" is no key a derive takes (letters, digits, `_`): keyed `a_b`
        a_b: bool,
    },
    /// "pair".
    #[abi(rename = "pair")]
    Pair(f64, abi_core::Any),
    /// "end-of-input".
    #[abi(rename = "end-of-input")]
    EndOfInput,
}
"#
        );
    }

    #[test]
    fn a_function_without_a_signature_is_declared_unchecked() {
        let mut out = String::new();
        declaration(&mut out, &mut Types::default(), &item("my.echo", None, true));
        assert!(out.contains("/// Unchecked: it is registered as packed (no signature published)"), "{out}");
        assert!(
            out.ends_with(
                "    #[abi(name = \"my.echo\", unchecked)]\n    fn my_echo(arg0: abi_core::Any) -> abi_core::Any;\n"
            ),
            "{out}"
        );
    }
}
