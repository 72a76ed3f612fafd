//! `abi diff`: every change between two builds' exports and object classes, classified as
//! breaking (callers built against the old build can fail) or compatible, by the relation
//! of `abi_core::schema` (the same one bind checks use). The generated Python package
//! takes parameters by keyword, so renaming one is breaking (unless Python cannot spell
//! its name, which keeps it positional-only); a default added is compatible, removed or
//! changed breaking, and a parameter added with a default compatible. Struct fields cross
//! as tuples in declaration order, so adding, removing or reordering one is breaking. A
//! fieldless enum crosses as its names: a name added to a parameter's enum is compatible,
//! one removed or renamed breaking, and the reverse for a result's.
//! Class members are reached by name, so adding one is compatible. An op's rules, outputs,
//! in-place parameters, backward and device are what its framework wrappers are made of:
//! changing one is breaking.

use std::collections::{BTreeSet, HashMap, HashSet};

use abi_cli::push_line;
use abi_core::schema::{python_literal, Metadata, OpInfo, ShapeRule, TypeSchema, Width};
use serde_json::{json, Value};

use crate::read::{Export, Listing};
use abi_core::schema::{Class, Method};

/// Whether a change can break existing callers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Callers of the old build may fail against the new one.
    Breaking,
    /// Callers keep working.
    Compatible,
}

/// Declares [`ChangeKind`]: each category with its name in reports and the severity it
/// always has, so a call site cannot pair a kind with the wrong severity.
macro_rules! change_kinds {
    ($($kind:ident => $name:literal, $severity:ident;)*) => {
        /// The category of a change.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ChangeKind {
            $(#[doc = concat!("`", $name, "`")] $kind,)*
        }

        impl ChangeKind {
            /// Its name in reports (`param_narrowed`).
            pub fn name(self) -> &'static str {
                match self {
                    $(ChangeKind::$kind => $name,)*
                }
            }

            /// Whether it can break existing callers.
            pub fn severity(self) -> Severity {
                match self {
                    $(ChangeKind::$kind => Severity::$severity,)*
                }
            }
        }
    };
}

change_kinds! {
    CallbackChanged => "callback_changed", Breaking;
    ClassAdded => "class_added", Compatible;
    ClassParentChanged => "class_parent_changed", Breaking;
    ClassRemoved => "class_removed", Breaking;
    DefaultAdded => "default_added", Compatible;
    DefaultChanged => "default_changed", Breaking;
    DefaultRemoved => "default_removed", Breaking;
    DocsChanged => "docs_changed", Compatible;
    ErrorKindAdded => "error_kind_added", Compatible;
    ErrorKindBaseChanged => "error_kind_base_changed", Breaking;
    ErrorKindRemoved => "error_kind_removed", Breaking;
    ErrorTypeChanged => "error_type_changed", Breaking;
    ExportAdded => "export_added", Compatible;
    ExportRemoved => "export_removed", Breaking;
    ExportRenamed => "export_renamed", Breaking;
    FieldAdded => "field_added", Compatible;
    FieldMadeReadOnly => "field_made_read_only", Breaking;
    FieldMadeWritable => "field_made_writable", Compatible;
    FieldRemoved => "field_removed", Breaking;
    FieldRetyped => "field_retyped", Breaking;
    GlobalAdded => "global_added", Compatible;
    GlobalRemoved => "global_removed", Breaking;
    GlobalRenamed => "global_renamed", Breaking;
    MethodAdded => "method_added", Compatible;
    MethodKindChanged => "method_kind_changed", Breaking;
    MethodRemoved => "method_removed", Breaking;
    OpAdded => "op_added", Compatible;
    OpBackwardAdded => "op_backward_added", Compatible;
    OpBackwardChanged => "op_backward_changed", Breaking;
    OpDeviceChanged => "op_device_changed", Breaking;
    OpInplaceChanged => "op_inplace_changed", Breaking;
    OpInputMadeCompact => "op_input_made_compact", Breaking;
    OpInputMadeStrided => "op_input_made_strided", Compatible;
    OpOutputAdded => "op_output_added", Breaking;
    OpOutputRemoved => "op_output_removed", Breaking;
    OpRemoved => "op_removed", Breaking;
    OpRuleChanged => "op_rule_changed", Breaking;
    OptionalMadeRequired => "optional_made_required", Breaking;
    ParamAdded => "param_added", Breaking;
    ParamAddedWithDefault => "param_added_with_default", Compatible;
    ParamNarrowed => "param_narrowed", Breaking;
    ParamRemoved => "param_removed", Breaking;
    ParamRenamed => "param_renamed", Breaking;
    ParamRetyped => "param_retyped", Breaking;
    PositionalParamRenamed => "positional_param_renamed", Compatible;
    ParamWidened => "param_widened", Compatible;
    ParamsReordered => "params_reordered", Breaking;
    ResultChanged => "result_changed", Breaking;
    ResultNarrowed => "result_narrowed", Compatible;
    ResultWidened => "result_widened", Breaking;
    StructFieldsChanged => "struct_fields_changed", Breaking;
    TensorChanged => "tensor_changed", Breaking;
}

/// One classified change.
#[derive(Debug, Clone)]
pub struct Change {
    /// The category, which owns the severity.
    pub kind: ChangeKind,
    /// What changed: an export, a class key, or `class.member` (`"function"` in `--json`).
    pub subject: String,
    /// The parameter, when the change is about one.
    pub param: Option<String>,
    /// The old side (a type, a name, a signature).
    pub old: Option<String>,
    /// The new side.
    pub new: Option<String>,
    /// One sentence.
    pub message: String,
}

/// Every change between two listings.
#[derive(Debug)]
pub struct Report {
    old: String,
    new: String,
    changes: Vec<Change>,
}

/// Adds the changes of one export, class or member to a report's list.
struct Diff<'a> {
    subject: &'a str,
    out: &'a mut Vec<Change>,
}

impl Diff<'_> {
    fn push(
        &mut self,
        kind: ChangeKind,
        param: Option<String>,
        sides: (Option<String>, Option<String>),
        message: String,
    ) {
        self.out.push(Change { kind, subject: self.subject.to_owned(), param, old: sides.0, new: sides.1, message });
    }
}

/// Compares `old` with `new`.
pub fn diff(old: &Listing, new: &Listing) -> Report {
    let mut changes = Vec::new();
    // Maps, not scans per export: a file may hold tens of thousands of exports.
    let new_by_name: HashMap<&str, &Export> = new.exports.iter().map(|e| (e.name.as_str(), e)).collect();
    let old_names: HashSet<&str> = old.exports.iter().map(|e| e.name.as_str()).collect();
    let sig = |e: &Export| e.metadata.as_ref().map(|m| m.python_signature("f"));
    let gone: Vec<(&Export, Option<String>)> =
        old.exports.iter().filter(|e| !new_by_name.contains_key(e.name.as_str())).map(|e| (e, sig(e))).collect();
    let added: Vec<(&Export, Option<String>)> =
        new.exports.iter().filter(|e| !old_names.contains(e.name.as_str())).map(|e| (e, sig(e))).collect();
    let mut removed_with: HashMap<&str, usize> = HashMap::new();
    for s in gone.iter().filter_map(|(_, s)| s.as_deref()) {
        *removed_with.entry(s).or_default() += 1;
    }
    let mut added_with: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in added.iter().enumerate().filter_map(|(i, (_, s))| Some((i, s.as_deref()?))) {
        added_with.entry(s).or_default().push(i);
    }
    let mut renamed_to = vec![false; added.len()];
    for (gone, s) in &gone {
        let mut d = Diff { subject: &gone.name, out: &mut changes };
        // Removed, and exactly one added export (and no other removed one) has its
        // signature and parameter names: a rename (callers still use the old name).
        let candidates = s.as_deref().and_then(|s| Some((removed_with[s], added_with.get(s)?.as_slice())));
        match candidates {
            Some((1, &[i])) => {
                renamed_to[i] = true;
                let to = added[i].0;
                d.push(
                    ChangeKind::ExportRenamed,
                    None,
                    (Some(gone.name.clone()), Some(to.name.clone())),
                    format!("renamed to `{}`: callers of `{}` fail", to.name, gone.name),
                );
            }
            _ => d.push(ChangeKind::ExportRemoved, None, (signature(gone), None), "removed".to_owned()),
        }
    }
    for ((a, _), _) in added.iter().zip(&renamed_to).filter(|(_, &renamed)| !renamed) {
        let mut d = Diff { subject: &a.name, out: &mut changes };
        d.push(ChangeKind::ExportAdded, None, (None, signature(a)), "added".to_owned());
    }
    for o in &old.exports {
        if let Some(n) = new_by_name.get(o.name.as_str()) {
            export(o, n, &mut changes);
        }
    }
    classes(&old.classes, &new.classes, &mut changes);
    error_kinds(old, new, &mut changes);
    changes.sort_by(|a, b| {
        (a.subject.as_str(), a.kind.severity() as u8).cmp(&(b.subject.as_str(), b.kind.severity() as u8))
    });
    Report { old: old.path.display().to_string(), new: new.path.display().to_string(), changes }
}

fn signature(e: &Export) -> Option<String> {
    e.metadata.as_ref().map(|m| m.python_signature(&e.name))
}

fn export(old: &Export, new: &Export, changes: &mut Vec<Change>) {
    let mut d = Diff { subject: &old.name, out: changes };
    if old.doc != new.doc {
        d.push(ChangeKind::DocsChanged, None, (old.doc.clone(), new.doc.clone()), "docs changed".to_owned());
    }
    let (Some(om), Some(nm)) = (&old.metadata, &new.metadata) else { return };
    global_name(&mut d, om.global.as_deref(), nm.global.as_deref());
    if om.error != nm.error {
        // No `abi.error`: abi_core's own `Error`.
        let plain = abi_shared::vocab::Kind::Error.python();
        let (o, n) = (om.error.as_deref().unwrap_or(plain), nm.error.as_deref().unwrap_or(plain));
        d.push(
            ChangeKind::ErrorTypeChanged,
            None,
            (om.error.clone(), nm.error.clone()),
            format!("error type changed: {o} -> {n} (callers catching the old one's kinds miss the new)"),
        );
    }
    op(&mut d, om.op.as_ref(), nm.op.as_ref());
    let (Some(ot), Some(nt)) = (&om.type_schema, &nm.type_schema) else { return };
    params(&mut d, om, nm);
    result(&mut d, &ot.ret, &nt.ret);
}

/// The parameters' changes: reordered as a whole, or each one's, then those added or
/// removed at the end.
fn params(d: &mut Diff<'_>, om: &Metadata, nm: &Metadata) {
    let (op, np) = (om.params(), nm.params());
    let same_types = op.len() == np.len() && op.iter().zip(&np).all(|((_, a), (_, b))| a.same_as(b));
    let names = |p: &[(String, TypeSchema)]| p.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    let (on, nn) = (names(&op), names(&np));
    let reordered = on != nn
        && on.iter().collect::<BTreeSet<_>>() == nn.iter().collect::<BTreeSet<_>>()
        && on.len() == nn.len()
        && !same_types;
    if reordered {
        d.push(
            ChangeKind::ParamsReordered,
            None,
            (Some(on.join(", ")), Some(nn.join(", "))),
            format!("parameters reordered: ({}) -> ({})", on.join(", "), nn.join(", ")),
        );
        return;
    }
    let (od, nd) = (om.defaults(), nm.defaults());
    for (i, (old, new)) in op.iter().zip(&np).enumerate() {
        param(d, i, old, new);
        default(d, i, &new.0, od[i].as_ref(), nd[i].as_ref());
    }
    for (i, (name, t)) in np.iter().enumerate().skip(op.len()) {
        match &nd[i] {
            Some(value) => d.push(
                ChangeKind::ParamAddedWithDefault,
                Some(name.clone()),
                (None, Some(t.python_layout())),
                format!(
                    "parameter `{name}` (#{i}: {} = {}) added with a default: old callers omit it",
                    t.python_layout(),
                    python_literal(value)
                ),
            ),
            None => d.push(
                ChangeKind::ParamAdded,
                Some(name.clone()),
                (None, Some(t.python_layout())),
                format!("parameter `{name}` (#{i}: {}) added: old callers pass too few arguments", t.python_layout()),
            ),
        }
    }
    for (i, (name, t)) in op.iter().enumerate().skip(np.len()) {
        d.push(
            ChangeKind::ParamRemoved,
            Some(name.clone()),
            (Some(t.python_layout()), None),
            format!("parameter `{name}` (#{i}: {}) removed: old callers pass too many arguments", t.python_layout()),
        );
    }
}

/// Parameter `i`'s change: its struct fields, its type (kind, then width), its name.
fn param(d: &mut Diff<'_>, i: usize, (oname, oty): &(String, TypeSchema), (nname, nty): &(String, TypeSchema)) {
    let at = format!("`{nname}` (#{i})");
    if let (TypeSchema::Struct { fields: of, .. }, TypeSchema::Struct { fields: nf, .. }) = (oty, nty) {
        if let Some(what) = fields_changed(of, nf) {
            d.push(
                ChangeKind::StructFieldsChanged,
                Some(nname.clone()),
                (Some(field_list(of)), Some(field_list(nf))),
                format!("parameter {at}: struct fields {what}"),
            );
            return;
        }
    }
    if let Some(sides) = tensor_changed(oty, nty) {
        let (o, n) = (tensor_text(oty), tensor_text(nty));
        let (kind, message) = match (oty, nty) {
            // A parameter that now converts (`HostTensorAs`) what it took before, and more.
            (TypeSchema::Tensor(ot), TypeSchema::Tensor(nt)) if nt.cast && nt.takes_all_of(ot) => {
                (ChangeKind::ParamWidened, format!("parameter {at} widened: {o} -> {n}"))
            }
            _ => (
                ChangeKind::TensorChanged,
                format!("parameter {at} tensor changed: {o} -> {n} (old arguments are refused)"),
            ),
        };
        d.push(kind, Some(nname.clone()), sides, message);
        return;
    }
    if !oty.same_as(nty) {
        param_type(d, &at, nname, oty, nty);
        return;
    }
    if let Some(w) = Widths::between(oty, nty) {
        w.report(d, Some((&at, nname)));
    }
    if oname != nname {
        // The generated package takes a parameter by its name when Python can spell it.
        let (kind, why) = match abi_shared::is_python_identifier(oname) {
            true => (ChangeKind::ParamRenamed, "callers passing it by keyword fail"),
            false => (ChangeKind::PositionalParamRenamed, "it is positional-only, so calls are unaffected"),
        };
        d.push(
            kind,
            Some(nname.clone()),
            (Some(oname.clone()), Some(nname.clone())),
            format!("parameter #{i} renamed `{oname}` -> `{nname}` ({why})"),
        );
    }
}

/// Parameter `i`'s default: added (callers may now omit it), removed (callers that
/// omitted it fail) or changed (they get another value).
fn default(d: &mut Diff<'_>, i: usize, name: &str, old: Option<&Value>, new: Option<&Value>) {
    let at = format!("`{name}` (#{i})");
    let sides = (old.map(python_literal), new.map(python_literal));
    match (old, new) {
        (None, Some(n)) => {
            let message = format!("parameter {at} has a default now: {} (callers may omit it)", python_literal(n));
            d.push(ChangeKind::DefaultAdded, Some(name.to_owned()), sides, message);
        }
        (Some(o), None) => {
            let message = format!("parameter {at} lost its default {}: callers that omit it fail", python_literal(o));
            d.push(ChangeKind::DefaultRemoved, Some(name.to_owned()), sides, message);
        }
        (Some(o), Some(n)) if o != n => {
            let message = format!(
                "parameter {at} default changed: {} -> {} (callers that omit it get another value)",
                python_literal(o),
                python_literal(n)
            );
            d.push(ChangeKind::DefaultChanged, Some(name.to_owned()), sides, message);
        }
        _ => {}
    }
}

/// The result's change: its struct fields, its type (kind, then width).
fn result(d: &mut Diff<'_>, or: &TypeSchema, nr: &TypeSchema) {
    if let (TypeSchema::Struct { fields: of, .. }, TypeSchema::Struct { fields: nf, .. }) = (or, nr) {
        if let Some(what) = fields_changed(of, nf) {
            d.push(
                ChangeKind::StructFieldsChanged,
                None,
                (Some(field_list(of)), Some(field_list(nf))),
                format!("result struct fields {what}"),
            );
            return;
        }
    }
    if let Some(sides) = tensor_changed(or, nr) {
        let message = format!(
            "result tensor changed: {} -> {} (old callers expect the old one)",
            or.python_layout(),
            nr.python_layout()
        );
        d.push(ChangeKind::TensorChanged, None, sides, message);
        return;
    }
    if or.same_as(nr) {
        if let Some(w) = Widths::between(or, nr) {
            w.report(d, None);
        }
        return;
    }
    let sides = (Some(or.python_layout()), Some(nr.python_layout()));
    let (o, n) = match or.enum_difference(nr) {
        Some(what) => (what, String::new()),
        None => (or.python_layout(), format!(" -> {}", nr.python_layout())),
    };
    if or.accepts(nr) {
        let message = format!("result narrowed: {o}{n} (every new result is an old one)");
        d.push(ChangeKind::ResultNarrowed, None, sides, message);
    } else if matches!((or, nr), (TypeSchema::Function(Some(_)), TypeSchema::Function(Some(_)))) {
        d.push(ChangeKind::CallbackChanged, None, sides, format!("result callback signature changed: {o}{n}"));
    } else {
        d.push(ChangeKind::ResultChanged, None, sides, format!("result changed: {o}{n}"));
    }
}

/// The two sides of a tensor whose element type, rank or casting changed (either way: a
/// typed tensor refuses every other dtype and rank, and callers rely on the ones a result
/// had; only a parameter that starts converting is a compatible change).
fn tensor_changed(old: &TypeSchema, new: &TypeSchema) -> Option<(Option<String>, Option<String>)> {
    match (old, new) {
        (TypeSchema::Tensor(o), TypeSchema::Tensor(n)) if o != n => {
            Some((Some(tensor_text(old)), Some(tensor_text(new))))
        }
        _ => None,
    }
}

/// A tensor as the diff shows it: its Python name, and whether it converts other dtypes
/// (which the name, as signatures print it, does not say).
fn tensor_text(t: &TypeSchema) -> String {
    match t {
        TypeSchema::Tensor(tensor) if tensor.cast => format!("{} (cast same_kind)", t.python_layout()),
        _ => t.python_layout(),
    }
}

/// Changes to object classes, named `<type key>` or `<type key>.<member>`. Hosts reach
/// fields and methods by name through the type table, so additions are compatible; a
/// removal, a field that can no longer be written or changed its type, another parent
/// (isinstance and the inherited members) or a method turned static or back break callers.
/// The error kinds of the two builds' derived error types, by kind: one removed is breaking
/// (callers catching its class, or comparing its kind, never see it again), one added
/// compatible, one whose Python base changed breaking (`except ValueError` no longer
/// catches it).
fn error_kinds(old: &Listing, new: &Listing, changes: &mut Vec<Change>) {
    let kinds = |l: &Listing| -> HashMap<String, (String, String)> {
        l.errors
            .iter()
            .flat_map(|e| e.kinds.iter().map(move |k| (k.kind.clone(), (e.name.clone(), k.base.clone()))))
            .collect()
    };
    let (old_kinds, new_kinds) = (kinds(old), kinds(new));
    for (kind, (owner, base)) in &old_kinds {
        let mut d = Diff { subject: owner, out: changes };
        match new_kinds.get(kind) {
            None => d.push(
                ChangeKind::ErrorKindRemoved,
                None,
                (Some(kind.clone()), None),
                format!("error kind {kind} removed (callers catching it never see it again)"),
            ),
            Some((_, new_base)) if new_base != base => d.push(
                ChangeKind::ErrorKindBaseChanged,
                None,
                (Some(base.clone()), Some(new_base.clone())),
                format!("error kind {kind} now subclasses {new_base}, not {base}, in Python"),
            ),
            Some(_) => {}
        }
    }
    for (kind, (owner, _)) in new_kinds.iter().filter(|(k, _)| !old_kinds.contains_key(*k)) {
        let mut d = Diff { subject: owner, out: changes };
        d.push(ChangeKind::ErrorKindAdded, None, (None, Some(kind.clone())), format!("error kind {kind} added"));
    }
}

fn classes(old: &[Class], new: &[Class], changes: &mut Vec<Change>) {
    // Maps, not scans: a file may declare tens of thousands of classes, fields and methods.
    let new_by_key: HashMap<&str, &Class> = new.iter().rev().map(|n| (n.key.as_str(), n)).collect();
    let old_keys: HashSet<&str> = old.iter().map(|o| o.key.as_str()).collect();
    for o in old {
        let mut d = Diff { subject: &o.key, out: changes };
        let Some(&n) = new_by_key.get(o.key.as_str()) else {
            d.push(ChangeKind::ClassRemoved, None, (Some(o.key.clone()), None), "class removed".to_owned());
            continue;
        };
        if o.parent != n.parent {
            d.push(
                ChangeKind::ClassParentChanged,
                None,
                (Some(o.parent.clone()), Some(n.parent.clone())),
                format!("parent changed: {} -> {} (isinstance and inherited members change)", o.parent, n.parent),
            );
        }
        if o.doc != n.doc {
            d.push(
                ChangeKind::DocsChanged,
                None,
                (Some(o.doc.clone()), Some(n.doc.clone())),
                "docs changed".to_owned(),
            );
        }
        class_fields(o, n, changes);
        class_methods(o, n, changes);
    }
    for n in new.iter().filter(|n| !old_keys.contains(n.key.as_str())) {
        let mut d = Diff { subject: &n.key, out: changes };
        d.push(ChangeKind::ClassAdded, None, (None, Some(n.key.clone())), "class added".to_owned());
    }
}

fn class_fields(old: &Class, new: &Class, changes: &mut Vec<Change>) {
    let new_fields: HashMap<&str, _> = new.fields.iter().rev().map(|f| (f.name.as_str(), f)).collect();
    let old_fields: HashSet<&str> = old.fields.iter().map(|f| f.name.as_str()).collect();
    for of in &old.fields {
        let name = format!("{}.{}", old.key, of.name);
        let mut d = Diff { subject: &name, out: changes };
        match new_fields.get(of.name.as_str()) {
            None => d.push(
                ChangeKind::FieldRemoved,
                None,
                (Some(of.ty.python_layout()), None),
                format!("field removed ({})", of.ty.python_layout()),
            ),
            Some(nf) => {
                if !of.ty.same_as(&nf.ty) {
                    d.push(
                        ChangeKind::FieldRetyped,
                        None,
                        (Some(of.ty.python_layout()), Some(nf.ty.python_layout())),
                        format!("field type changed: {} -> {}", of.ty.python_layout(), nf.ty.python_layout()),
                    );
                }
                if of.writable != nf.writable {
                    let (kind, what) = if of.writable {
                        (ChangeKind::FieldMadeReadOnly, "read-only now: assignments fail")
                    } else {
                        (ChangeKind::FieldMadeWritable, "writable now")
                    };
                    d.push(kind, None, (None, None), format!("field {what}"));
                }
                if of.doc != nf.doc {
                    let sides = (Some(of.doc.clone()), Some(nf.doc.clone()));
                    d.push(ChangeKind::DocsChanged, None, sides, "docs changed".to_owned());
                }
            }
        }
    }
    for nf in new.fields.iter().filter(|nf| !old_fields.contains(nf.name.as_str())) {
        let name = format!("{}.{}", new.key, nf.name);
        let mut d = Diff { subject: &name, out: changes };
        d.push(
            ChangeKind::FieldAdded,
            None,
            (None, Some(nf.ty.python_layout())),
            format!(
                "field added ({}); other libraries declaring this type key must be rebuilt with it",
                nf.ty.python_layout()
            ),
        );
    }
}

fn class_methods(old: &Class, new: &Class, changes: &mut Vec<Change>) {
    let as_export = |c: &Class, m: &Method| Export {
        name: format!("{}.{}", c.key, m.name),
        metadata: Some(m.metadata.clone()),
        doc: Some(m.doc.clone()),
    };
    let new_methods: HashMap<&str, &Method> = new.methods.iter().rev().map(|m| (m.name.as_str(), m)).collect();
    let old_methods: HashSet<&str> = old.methods.iter().map(|m| m.name.as_str()).collect();
    for om in &old.methods {
        let oe = as_export(old, om);
        let mut d = Diff { subject: &oe.name, out: changes };
        match new_methods.get(om.name.as_str()).copied() {
            None => d.push(ChangeKind::MethodRemoved, None, (signature(&oe), None), "method removed".to_owned()),
            Some(nm) if nm.is_static != om.is_static => {
                let what = if nm.is_static { "static now (no receiver)" } else { "an instance method now" };
                d.push(
                    ChangeKind::MethodKindChanged,
                    None,
                    (signature(&oe), signature(&as_export(new, nm))),
                    format!("method is {what}"),
                );
            }
            Some(nm) => export(&oe, &as_export(new, nm), d.out),
        }
    }
    for nm in new.methods.iter().filter(|nm| !old_methods.contains(nm.name.as_str())) {
        let ne = as_export(new, nm);
        let mut d = Diff { subject: &ne.name, out: changes };
        d.push(ChangeKind::MethodAdded, None, (None, signature(&ne)), "method added".to_owned());
    }
}

/// An op's changes: the framework wrappers allocate outputs by their rules, mutate the
/// in-place parameters and differentiate through the backward, so a changed rule, a
/// removed or added output, a parameter that starts or stops being written in place, a
/// changed or removed backward, another device and an input that stops taking any
/// strides all break callers; becoming an op, gaining a backward and an input that starts
/// taking any strides do not.
fn op(d: &mut Diff<'_>, old: Option<&OpInfo>, new: Option<&OpInfo>) {
    let (o, n) = match (old, new) {
        (None, None) => return,
        (None, Some(_)) => {
            return d.push(ChangeKind::OpAdded, None, (None, None), "now an op (framework wrappers)".to_owned());
        }
        (Some(_), None) => {
            return d.push(
                ChangeKind::OpRemoved,
                None,
                (None, None),
                "no longer an op: its framework wrappers are gone".to_owned(),
            );
        }
        (Some(o), Some(n)) => (o, n),
    };
    for out in &o.outputs {
        match n.rule_of(&out.name) {
            None => d.push(
                ChangeKind::OpOutputRemoved,
                Some(out.name.clone()),
                (Some(out.rule.text()), None),
                format!("output `{}` removed: callers that read it fail", out.name),
            ),
            Some(rule) if (*rule == ShapeRule::InOut) != (out.rule == ShapeRule::InOut) => d.push(
                ChangeKind::OpInplaceChanged,
                Some(out.name.clone()),
                (Some(out.rule.text()), Some(rule.text())),
                format!("`{}` changed between output and in place: {} -> {}", out.name, out.rule.text(), rule.text()),
            ),
            Some(rule) if *rule != out.rule => d.push(
                ChangeKind::OpRuleChanged,
                Some(out.name.clone()),
                (Some(out.rule.text()), Some(rule.text())),
                format!(
                    "shape rule of `{}` changed: {} -> {} (outputs are allocated by it)",
                    out.name,
                    out.rule.text(),
                    rule.text()
                ),
            ),
            Some(_) => {}
        }
    }
    for out in n.outputs.iter().filter(|out| o.rule_of(&out.name).is_none()) {
        d.push(
            ChangeKind::OpOutputAdded,
            Some(out.name.clone()),
            (None, Some(out.rule.text())),
            format!("output `{}` added: callers passing outputs (`{}=buf`) miss it", out.name, out.name),
        );
    }
    // Strides: an input both builds take, accepting any strides in one and not the other.
    let layout = |info: &OpInfo, input: &String| if info.strided.contains(input) { "strided" } else { "compact" };
    for input in o.inputs.iter().filter(|i| n.inputs.contains(i)) {
        let sides = (Some(layout(o, input).to_owned()), Some(layout(n, input).to_owned()));
        match (layout(o, input), layout(n, input)) {
            ("strided", "compact") => d.push(
                ChangeKind::OpInputMadeCompact,
                Some(input.clone()),
                sides,
                format!("`{input}` no longer takes any strides: non-contiguous tensors are refused"),
            ),
            ("compact", "strided") => d.push(
                ChangeKind::OpInputMadeStrided,
                Some(input.clone()),
                sides,
                format!("`{input}` now takes any strides"),
            ),
            _ => {}
        }
    }
    let sides = (o.backward.clone(), n.backward.clone());
    match (&o.backward, &n.backward) {
        (Some(a), Some(b)) if a != b => d.push(
            ChangeKind::OpBackwardChanged,
            None,
            sides,
            format!("backward changed: {a} -> {b} (gradients are computed by another op)"),
        ),
        (Some(a), None) => d.push(
            ChangeKind::OpBackwardChanged,
            None,
            sides,
            format!("backward `{a}` removed: it can no longer be differentiated"),
        ),
        (None, Some(b)) => d.push(ChangeKind::OpBackwardAdded, None, sides, format!("backward `{b}` added")),
        _ => {}
    }
    if o.device != n.device {
        d.push(
            ChangeKind::OpDeviceChanged,
            None,
            (Some(o.device.clone()), Some(n.device.clone())),
            format!("device changed: {} -> {}", o.device, n.device),
        );
    }
}

/// A changed `#[export_fn(global = ...)]` name: hosts look globals up by name, so a
/// renamed or removed one is not found by old callers; an added one breaks nobody.
fn global_name(d: &mut Diff<'_>, old: Option<&str>, new: Option<&str>) {
    let sides = (old.map(str::to_owned), new.map(str::to_owned));
    match (old, new) {
        (Some(o), Some(n)) if o != n => d.push(
            ChangeKind::GlobalRenamed,
            None,
            sides,
            format!("global name changed: {o} -> {n} (callers looking up `{o}` find nothing)"),
        ),
        (Some(o), None) => {
            d.push(ChangeKind::GlobalRemoved, None, sides, format!("no longer registered as the global `{o}`"))
        }
        (None, Some(n)) => d.push(ChangeKind::GlobalAdded, None, sides, format!("registered as the global `{n}` too")),
        _ => {}
    }
}

fn param_type(d: &mut Diff<'_>, at: &str, name: &str, old: &TypeSchema, new: &TypeSchema) {
    let sides = (Some(old.python_layout()), Some(new.python_layout()));
    let (o, n) = (old.python_layout(), new.python_layout());
    // An enum with data's change says which variants and fields changed.
    let (o, n) = match old.enum_difference(new) {
        Some(what) => (what, String::new()),
        None => (o, format!(" -> {n}")),
    };
    let p = Some(name.to_owned());
    if new.accepts(old) {
        d.push(ChangeKind::ParamWidened, p, sides, format!("parameter {at} widened: {o}{n}"));
    } else if matches!(old, TypeSchema::Optional(inner) if inner.same_as(new)) {
        d.push(
            ChangeKind::OptionalMadeRequired,
            p,
            sides,
            format!("parameter {at} was optional, now required: {o}{n} (None is refused)"),
        );
    } else if matches!((old, new), (TypeSchema::Function(_), TypeSchema::Function(_))) {
        d.push(ChangeKind::CallbackChanged, p, sides, format!("parameter {at} callback signature changed: {o}{n}"));
    } else if !old.accepts(new) {
        // Neither side takes the other's values (`int -> str`): a change of kind, not of
        // width, whatever the old arguments were.
        d.push(
            ChangeKind::ParamRetyped,
            p,
            sides,
            format!("parameter {at} type changed: {o}{n} (old arguments are refused)"),
        );
    } else {
        d.push(
            ChangeKind::ParamNarrowed,
            p,
            sides,
            format!("parameter {at} narrowed: {o}{n} (old arguments may be refused)"),
        );
    }
}

/// How the numeric widths of two types of the same kinds relate (the model carries
/// widths where the publisher said them: abi's `iree.abi` record; C++ tvm-ffi metadata
/// names kinds only). Conversions check ranges per call, so a parameter narrowed (in width
/// or signedness) refuses arguments that used to work, and a result widened may not fit
/// what old callers hold.
struct Widths {
    /// The old side's differing numeric leaves, e.g. `i64`.
    old: String,
    /// The new side's.
    new: String,
    /// Every value of each old leaf is a value of the new one.
    new_holds_old: bool,
    /// Every value of each new leaf is a value of the old one.
    old_holds_new: bool,
}

impl Widths {
    /// `None` when no numeric leaf differs in width, or a side publishes no width (C++
    /// tvm-ffi metadata has none, so it is never flagged for one).
    fn between(old: &TypeSchema, new: &TypeSchema) -> Option<Widths> {
        let mut pairs = Vec::new();
        numeric_leaves(old, new, &mut pairs);
        if pairs.is_empty() {
            return None;
        }
        let join = |side: fn(&(Width, Width)) -> Width| pairs.iter().map(|p| side(p).to_string()).collect::<Vec<_>>();
        Some(Widths {
            old: join(|p| p.0).join(", "),
            new: join(|p| p.1).join(", "),
            new_holds_old: pairs.iter().all(|(o, n)| n.holds(*o) == Some(true)),
            old_holds_new: pairs.iter().all(|(o, n)| o.holds(*n) == Some(true)),
        })
    }

    /// Reports the change of a parameter (`at`, its name) or of the result (`None`), by
    /// variance: a parameter must hold every old argument, the old result type every new
    /// result.
    fn report(&self, d: &mut Diff<'_>, param: Option<(&str, &str)>) {
        let (o, n) = (&self.old, &self.new);
        let (kind, message) = match param {
            Some((at, _)) if self.new_holds_old => {
                (ChangeKind::ParamWidened, format!("parameter {at} widened: {o} -> {n}"))
            }
            Some((at, _)) => (
                ChangeKind::ParamNarrowed,
                format!("parameter {at} narrowed: {o} -> {n} (old arguments may be out of range)"),
            ),
            None if self.old_holds_new => {
                (ChangeKind::ResultNarrowed, format!("result narrowed: {o} -> {n} (every new result is an old one)"))
            }
            None => (
                ChangeKind::ResultWidened,
                format!("result widened: {o} -> {n} (old callers may not hold every new result)"),
            ),
        };
        let name = param.map(|(_, name)| name.to_owned());
        d.push(kind, name, (Some(o.clone()), Some(n.clone())), message);
    }
}

/// The pairs of numbers whose published widths differ between two types of the same kinds,
/// through optionals, arrays, maps, tuples and structs.
fn numeric_leaves(old: &TypeSchema, new: &TypeSchema, out: &mut Vec<(Width, Width)>) {
    match (old.width(), new.width()) {
        (Some(o), Some(n)) if o != n => out.push((o, n)),
        (Some(_), _) | (_, Some(_)) => {}
        (None, None) => {
            let (o, n) = (old.args(), new.args());
            if o.len() == n.len() && old.kind() == new.kind() {
                o.into_iter().zip(n).for_each(|(o, n)| numeric_leaves(o, n, out));
            }
        }
    }
}

fn field_list(fields: &[(String, TypeSchema)]) -> String {
    fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
}

/// How a struct's fields changed (added, removed, reordered, retyped), or `None`.
fn fields_changed(old: &[(String, TypeSchema)], new: &[(String, TypeSchema)]) -> Option<String> {
    if old == new {
        return None;
    }
    let on: Vec<&str> = old.iter().map(|(n, _)| n.as_str()).collect();
    let nn: Vec<&str> = new.iter().map(|(n, _)| n.as_str()).collect();
    let mut parts = Vec::new();
    let added: Vec<&str> = nn.iter().filter(|n| !on.contains(n)).copied().collect();
    let removed: Vec<&str> = on.iter().filter(|n| !nn.contains(n)).copied().collect();
    if !added.is_empty() {
        parts.push(format!("added {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", removed.join(", ")));
    }
    let kept_old: Vec<&str> = on.iter().filter(|n| nn.contains(n)).copied().collect();
    let kept_new: Vec<&str> = nn.iter().filter(|n| on.contains(n)).copied().collect();
    if kept_old != kept_new {
        parts.push("reordered".to_owned());
    }
    let retyped: Vec<String> = old
        .iter()
        .filter_map(|(n, t)| {
            let (_, u) = new.iter().find(|(m, _)| m == n)?;
            (t != u).then(|| format!("{n} ({} -> {})", t.python_layout(), u.python_layout()))
        })
        .collect();
    if !retyped.is_empty() {
        parts.push(format!("retyped {}", retyped.join(", ")));
    }
    Some(format!("{}: ({}) -> ({})", parts.join("; "), on.join(", "), nn.join(", ")))
}

impl Report {
    /// Whether anything breaks.
    pub fn breaking(&self) -> bool {
        self.changes.iter().any(|c| c.kind.severity() == Severity::Breaking)
    }

    /// One line per change and a summary; each line through [`push_line`], since the names
    /// and types a change quotes come from the files.
    pub fn text(&self) -> String {
        let mut out = String::new();
        push_line(&mut out, &format!("abi diff {} -> {}", self.old, self.new));
        for c in &self.changes {
            let tag = match c.kind.severity() {
                Severity::Breaking => "BREAKING  ",
                Severity::Compatible => "compatible",
            };
            push_line(&mut out, &format!("{tag} {}: {} [{}]", c.subject, c.message, c.kind.name()));
        }
        let n = self.changes.iter().filter(|c| c.kind.severity() == Severity::Breaking).count();
        push_line(&mut out, &format!("{n} breaking, {} compatible change(s)", self.changes.len() - n));
        out
    }

    /// The report as JSON.
    pub fn json(&self) -> Value {
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|c| {
                json!({
                    "severity": match c.kind.severity() { Severity::Breaking => "breaking", Severity::Compatible => "compatible" },
                    "kind": c.kind.name(),
                    "function": c.subject,
                    "parameter": c.param,
                    "old": c.old,
                    "new": c.new,
                    "message": c.message,
                })
            })
            .collect();
        json!({ "old": self.old, "new": self.new, "breaking": self.breaking(), "changes": changes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_core::{AbiType, TypeDesc};

    fn class(key: &str, parent: &str) -> Class {
        Class { key: key.into(), parent: parent.into(), doc: String::new(), fields: Vec::new(), methods: Vec::new() }
    }

    /// A listing of one export `f` with the metadata `m` (its format version added) and the
    /// error types `errors`.
    fn one_export(mut m: serde_json::Value, errors: Vec<abi_core::schema::ErrorType>) -> Listing {
        m[abi_shared::VERSION_KEY] = abi_shared::METADATA_VERSION.into();
        let metadata = Some(Metadata::parse(&m.to_string()).unwrap());
        Listing {
            path: std::path::PathBuf::from("lib.so"),
            source: crate::read::Source::Data,
            exports: vec![Export { name: "f".into(), metadata, doc: None }],
            classes: Vec::new(),
            errors,
            iree: Default::default(),
        }
    }

    fn kinds(changes: &[Change]) -> Vec<(&str, &str, Severity)> {
        changes.iter().map(|c| (c.subject.as_str(), c.kind.name(), c.kind.severity())).collect()
    }

    /// A file may hold tens of thousands of exports, methods and defaults: 20,000 removed
    /// exports, 20,000 renamed methods and an export of 20,000 parameters with defaults
    /// diff in time linear in their number. (Each scanned the others before, and this
    /// did not finish in minutes.)
    #[test]
    fn thousands_of_exports_methods_and_defaults_diff_in_linear_time() {
        const N: usize = 20_000;
        let names: Vec<String> = (0..N).map(|i| format!("p{i}")).collect();
        let schema = |n: usize| {
            let params: Vec<String> = (0..n).map(|_| r#"{"type":"int"}"#.to_owned()).collect();
            format!(
                r#"{{"type":"ffi.Function","named_args":{{"return":[{{"type":"int"}}],"params":[{}]}}}}"#,
                params.join(",")
            )
        };
        let metadata = |n: usize, defaults: bool| {
            let mut m = serde_json::json!({
                "type_schema": schema(n), "arg_names": names[..n], "abi.version": abi_shared::METADATA_VERSION,
            });
            if defaults {
                let d: serde_json::Map<String, serde_json::Value> =
                    names[n / 2..n].iter().map(|k| (k.clone(), serde_json::json!(1))).collect();
                m[abi_shared::DEFAULTS_KEY] = serde_json::Value::Object(d);
            }
            Metadata::parse(&m.to_string()).unwrap()
        };
        let one = metadata(1, false);
        let export = |name: String, m: &Metadata| Export { name, metadata: Some(m.clone()), doc: None };
        let wide = metadata(N, true);
        let listing = |exports: Vec<Export>, methods: &str| Listing {
            path: std::path::PathBuf::from("lib.so"),
            source: crate::read::Source::Data,
            exports,
            classes: vec![Class {
                methods: (0..N)
                    .map(|i| Method {
                        name: format!("{methods}{i}"),
                        is_static: true,
                        doc: String::new(),
                        metadata: one.clone(),
                    })
                    .collect(),
                ..class("k.C", "ffi.Object")
            }],
            errors: Vec::new(),
            iree: Default::default(),
        };
        let mut old: Vec<Export> = (0..N).map(|i| export(format!("f{i}"), &one)).collect();
        old.push(export("wide".into(), &wide));
        let report = diff(&listing(old, "m"), &listing(vec![export("wide".into(), &wide)], "n"));
        let count = |kind: &str| report.changes.iter().filter(|c| c.kind.name() == kind).count();
        assert_eq!((count("export_removed"), count("method_removed"), count("method_added")), (N, N, N));
        assert_eq!(report.changes.len(), 3 * N);
    }

    /// A fieldless enum's names are the values it takes: a parameter that takes more is
    /// widened, fewer or others breaking; a result that gives fewer is narrowed, more or
    /// others breaking. Reordering names, or renaming the Rust enum or its variants, changes
    /// nothing that crosses.
    #[test]
    fn enum_names_added_removed_and_renamed_change_by_side() {
        let interp = |names: &[&str], rust: &str| {
            format!(r#"{{"type":"ffi.String","abi.enum":"{rust}","abi.names":{}}}"#, serde_json::json!(names))
        };
        let listing = |param: &str, ret: &str| {
            let schema = format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{ret}],"params":[{param}]}}}}"#);
            one_export(serde_json::json!({ "type_schema": schema, "arg_names": ["mode"] }), Vec::new())
        };
        let two = interp(&["nearest", "cubic"], "Interp");
        let three = interp(&["nearest", "cubic", "area"], "Interp");
        let renamed = interp(&["nearest", "bicubic"], "Interp");
        let kinds_of = |old: &Listing, new: &Listing| {
            diff(old, new).changes.iter().map(|c| (c.kind.name(), c.kind.severity())).collect::<Vec<_>>()
        };
        let s = r#"{"type":"ffi.String"}"#;
        use Severity::*;
        assert_eq!(kinds_of(&listing(&two, s), &listing(&three, s)), [("param_widened", Compatible)]);
        assert_eq!(kinds_of(&listing(&three, s), &listing(&two, s)), [("param_narrowed", Breaking)]);
        assert_eq!(kinds_of(&listing(&two, s), &listing(&renamed, s)), [("param_retyped", Breaking)]);
        assert_eq!(kinds_of(&listing(s, &three), &listing(s, &two)), [("result_narrowed", Compatible)]);
        assert_eq!(kinds_of(&listing(s, &two), &listing(s, &three)), [("result_changed", Breaking)]);
        assert_eq!(kinds_of(&listing(s, &two), &listing(s, &renamed)), [("result_changed", Breaking)]);
        // A str parameter made an enum refuses other strings; an enum made a str takes all.
        assert_eq!(kinds_of(&listing(s, s), &listing(&two, s)), [("param_narrowed", Breaking)]);
        assert_eq!(kinds_of(&listing(&two, s), &listing(s, s)), [("param_widened", Compatible)]);
        let reordered = interp(&["cubic", "nearest"], "Mode");
        assert!(kinds_of(&listing(&two, &two), &listing(&reordered, &reordered)).is_empty());
        let report = diff(&listing(&three, s), &listing(&two, s));
        // The message names the change; the sides keep both layouts.
        let change = &report.changes[0];
        assert!(change.message.contains(r#"narrowed: enum Interp: name "area" removed"#), "{}", change.message);
        assert_eq!(change.old.as_deref(), Some(r#"Literal["nearest", "cubic", "area"]"#));
    }

    #[test]
    fn enum_variants_and_fields_added_removed_and_changed_say_which_by_side() {
        let figure = |variants: &[(&str, &[&str])]| {
            let args: Vec<String> = variants
                .iter()
                .map(|(_, fields)| {
                    let items: Vec<&str> = std::iter::once(r#"{"type":"ffi.String"}"#)
                        .chain(fields.iter().map(|_| r#"{"type":"float"}"#))
                        .collect();
                    format!(r#"{{"type":"Tuple","args":[{}]}}"#, items.join(","))
                })
                .collect();
            let names: Vec<&str> = variants.iter().map(|(n, _)| *n).collect();
            let fields: Vec<Vec<&str>> = variants.iter().map(|(_, f)| f.to_vec()).collect();
            format!(
                r#"{{"type":"Variant","args":[{}],"abi.enum":"Figure","abi.names":{},"abi.variants":{},"abi.variant_fields":{}}}"#,
                args.join(","),
                serde_json::json!(names),
                serde_json::json!(names),
                serde_json::json!(fields)
            )
        };
        let listing = |param: &str, ret: &str| {
            let schema = format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{ret}],"params":[{param}]}}}}"#);
            one_export(serde_json::json!({ "type_schema": schema, "arg_names": ["s"] }), Vec::new())
        };
        let two = figure(&[("Circle", &["r"]), ("Empty", &[])]);
        let three = figure(&[("Circle", &["r"]), ("Empty", &[]), ("Rect", &["w", "h"])]);
        let wider_circle = figure(&[("Circle", &["r", "cx"]), ("Empty", &[])]);
        let changes = |old: &Listing, new: &Listing| {
            diff(old, new)
                .changes
                .iter()
                .map(|c| (c.kind.name(), c.kind.severity(), c.message.clone()))
                .collect::<Vec<_>>()
        };
        let f = r#"{"type":"float"}"#;
        use Severity::*;
        let one = |old: &Listing, new: &Listing| {
            let c = changes(old, new);
            assert_eq!(c.len(), 1, "{c:?}");
            c.into_iter().next().unwrap()
        };
        let (kind, severity, message) = one(&listing(&two, f), &listing(&three, f));
        assert_eq!((kind, severity), ("param_widened", Compatible));
        assert!(message.contains(r#"enum Figure: variant "Rect" added"#), "{message}");
        let (kind, severity, message) = one(&listing(&three, f), &listing(&two, f));
        assert_eq!((kind, severity), ("param_narrowed", Breaking));
        assert!(message.contains(r#"variant "Rect" removed"#), "{message}");
        assert_eq!(one(&listing(f, &three), &listing(f, &two)).0, "result_narrowed");
        let (kind, severity, message) = one(&listing(f, &two), &listing(f, &three));
        assert_eq!((kind, severity), ("result_changed", Breaking));
        assert!(message.contains(r#"result changed: enum Figure: variant "Rect" added"#), "{message}");
        let (kind, severity, message) = one(&listing(&two, f), &listing(&wider_circle, f));
        assert_eq!((kind, severity), ("param_retyped", Breaking));
        assert!(message.contains(r#"variant "Circle" fields (r) -> (r, cx)"#), "{message}");
        // Nested in a list, the message still names the enum's change, not both layouts.
        let list = |t: &str| format!(r#"{{"type":"ffi.Array","args":[{t}]}}"#);
        let (kind, _, message) = one(&listing(&list(&two), f), &listing(&list(&three), f));
        assert_eq!(kind, "param_widened");
        assert!(message.ends_with(r#"widened: enum Figure: variant "Rect" added"#), "{message}");
        assert!(changes(&listing(&two, &two), &listing(&two, &two)).is_empty());
    }

    /// An error kind removed, or its Python base changed, is breaking; one added is
    /// compatible; an export raising another error type is breaking.
    #[test]
    fn error_kinds_removed_rebased_and_added() {
        use abi_core::schema::{ErrorKind, ErrorType};
        let kind = |k: &str, base: &str| ErrorKind {
            variant: k.into(),
            kind: format!("l.E.{k}"),
            base: base.into(),
            doc: String::new(),
        };
        let listing = |kinds: Vec<ErrorKind>, error: &str| {
            let schema = r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[]}}"#;
            let m = serde_json::json!({ "type_schema": schema, "arg_names": [], "abi.error": error });
            one_export(m, vec![ErrorType { name: "E".into(), doc: String::new(), kinds }])
        };
        let old = listing(vec![kind("A", "ValueError"), kind("B", "RuntimeError")], "E");
        let new = listing(vec![kind("A", "IndexError"), kind("C", "RuntimeError")], "E2");
        let report = diff(&old, &new);
        let mut found = kinds(&report.changes);
        found.sort_by_key(|(subject, kind, _)| (*subject, *kind));
        use Severity::*;
        assert_eq!(
            found,
            [
                ("E", "error_kind_added", Compatible),
                ("E", "error_kind_base_changed", Breaking),
                ("E", "error_kind_removed", Breaking),
                ("f", "error_type_changed", Breaking),
            ]
        );
        assert!(diff(&old, &old).changes.is_empty());
    }

    fn widths(old: &TypeDesc, new: &TypeDesc) -> Option<(bool, bool)> {
        Widths::between(&old.into(), &new.into()).map(|w| (w.new_holds_old, w.old_holds_new))
    }

    fn desc<T: AbiType + ?Sized>() -> &'static TypeDesc {
        T::DESC
    }

    #[test]
    fn widths_follow_the_values_each_side_holds() {
        use half::{bf16, f16};
        // (new holds every old value, old holds every new value)
        assert_eq!(widths(desc::<i64>(), desc::<u8>()), Some((false, true)), "narrowed");
        assert_eq!(widths(desc::<u8>(), desc::<i64>()), Some((true, false)), "widened");
        assert_eq!(widths(desc::<i64>(), desc::<u64>()), Some((false, false)), "signedness: neither holds the other");
        assert_eq!(widths(desc::<u32>(), desc::<i64>()), Some((true, false)));
        assert_eq!(widths(desc::<i8>(), desc::<i16>()), Some((true, false)));
        assert_eq!(widths(desc::<f64>(), desc::<f32>()), Some((false, true)));
        assert_eq!(widths(desc::<f16>(), desc::<f32>()), Some((true, false)));
        assert_eq!(widths(desc::<bf16>(), desc::<f32>()), Some((true, false)));
        assert_eq!(widths(desc::<f16>(), desc::<bf16>()), Some((false, false)), "each has values the other lacks");
        assert_eq!(widths(desc::<i64>(), desc::<i64>()), None, "unchanged");
        assert_eq!(widths(desc::<String>(), desc::<Vec<u8>>()), None, "not numeric: a kind change");
        // Inside containers, every differing leaf counts.
        assert_eq!(widths(desc::<Vec<i64>>(), desc::<Vec<i32>>()), Some((false, true)));
        assert_eq!(
            widths(desc::<(i32, f32)>(), desc::<(i64, f16)>()),
            Some((false, false)),
            "one leaf widened, one narrowed"
        );
        assert_eq!(widths(desc::<Option<u16>>(), desc::<Option<u32>>()), Some((true, false)));
    }

    #[test]
    fn a_tensor_whose_dtype_or_rank_changes_breaks_callers() {
        use abi_core::HostTensor;
        let param = |old: &TypeDesc, new: &TypeDesc| {
            let mut changes = Vec::new();
            let mut d = Diff { subject: "f", out: &mut changes };
            param(&mut d, 0, &("x".to_owned(), old.into()), &("x".to_owned(), new.into()));
            changes.iter().map(|c| (c.kind, c.message.clone())).collect::<Vec<_>>()
        };
        let f32_2 = desc::<HostTensor<'static, f32, 2>>();
        assert_eq!(
            param(f32_2, desc::<HostTensor<'static, f64, 2>>()),
            [(
                ChangeKind::TensorChanged,
                "parameter `x` (#0) tensor changed: Tensor[f32, 2] -> Tensor[f64, 2] (old arguments are refused)"
                    .to_owned()
            )]
        );
        assert_eq!(param(f32_2, desc::<HostTensor<'static, f32, 1>>())[0].0, ChangeKind::TensorChanged);
        assert_eq!(param(desc::<abi_core::Tensor>(), f32_2)[0].0, ChangeKind::TensorChanged, "any dtype -> f32 only");
        assert!(param(f32_2, f32_2).is_empty());
        assert_eq!(ChangeKind::TensorChanged.severity(), Severity::Breaking);

        // A parameter that starts converting other dtypes (HostTensorAs) takes every old
        // argument: compatible. Stopping, or converting to another dtype, is not.
        use abi_core::HostTensorAs;
        let as_f32_2 = desc::<HostTensorAs<'static, f32, 2>>();
        assert_eq!(
            param(f32_2, as_f32_2),
            [(
                ChangeKind::ParamWidened,
                "parameter `x` (#0) widened: Tensor[f32, 2] -> Tensor[f32, 2] (cast same_kind)".to_owned()
            )]
        );
        assert_eq!(ChangeKind::ParamWidened.severity(), Severity::Compatible);
        assert_eq!(
            param(as_f32_2, f32_2),
            [(
                ChangeKind::TensorChanged,
                "parameter `x` (#0) tensor changed: Tensor[f32, 2] (cast same_kind) -> Tensor[f32, 2] (old arguments \
                 are refused)"
                    .to_owned()
            )]
        );
        let as_f64_2 = desc::<HostTensorAs<'static, f64, 2>>();
        assert_eq!(param(as_f32_2, as_f64_2)[0].0, ChangeKind::ParamWidened, "f32 casts to f64, so all it took does");
        assert_eq!(param(as_f64_2, as_f32_2)[0].0, ChangeKind::ParamWidened, "float64 casts same_kind to float32");
        let as_i32_2 = desc::<HostTensorAs<'static, i32, 2>>();
        assert_eq!(param(as_f32_2, as_i32_2)[0].0, ChangeKind::TensorChanged, "floats do not cast to int32");
        assert_eq!(param(f32_2, desc::<HostTensorAs<'static, f32, 1>>())[0].0, ChangeKind::TensorChanged, "rank");
    }

    #[test]
    fn a_change_of_kind_is_a_type_change_not_a_narrowing() {
        let param = |old: &TypeDesc, new: &TypeDesc| {
            let mut changes = Vec::new();
            let mut d = Diff { subject: "f", out: &mut changes };
            param(&mut d, 0, &("x".to_owned(), old.into()), &("x".to_owned(), new.into()));
            changes.iter().map(|c| (c.kind, c.message.clone())).collect::<Vec<_>>()
        };
        assert_eq!(
            param(desc::<i64>(), desc::<String>()),
            [(
                ChangeKind::ParamRetyped,
                "parameter `x` (#0) type changed: int -> str (old arguments are refused)".to_owned()
            )]
        );
        assert_eq!(ChangeKind::ParamRetyped.severity(), Severity::Breaking);
        // A narrowing keeps its name: every new argument was an old one.
        assert_eq!(param(desc::<abi_core::Any>(), desc::<i64>())[0].0, ChangeKind::ParamNarrowed);
        assert_eq!(param(desc::<Option<i64>>(), desc::<i64>())[0].0, ChangeKind::OptionalMadeRequired);
    }

    #[test]
    fn a_side_without_widths_is_never_flagged() {
        let published = |t: &str| TypeSchema::parse(t).unwrap();
        assert!(Widths::between(&published(r#"{"type":"int"}"#), &desc::<u8>().into()).is_none());
        assert!(Widths::between(&desc::<i64>().into(), &published(r#"{"type":"int"}"#)).is_none());
        let list = published(r#"{"type":"ffi.Array","args":[{"type":"int"}]}"#);
        assert!(Widths::between(&list, &desc::<Vec<u8>>().into()).is_none());
    }

    #[test]
    fn a_new_parent_breaks_and_new_docs_do_not() {
        let old = [class("m.Child", "m.Base")];
        let mut new = [class("m.Child", "ffi.Object")];
        new[0].doc = "A child.".into();
        let mut changes = Vec::new();
        classes(&old, &new, &mut changes);
        assert_eq!(
            kinds(&changes),
            [
                ("m.Child", "class_parent_changed", Severity::Breaking),
                ("m.Child", "docs_changed", Severity::Compatible)
            ]
        );
        assert_eq!(
            changes[0].message,
            "parent changed: m.Base -> ffi.Object (isinstance and inherited members change)"
        );
    }

    #[test]
    fn a_field_keeps_its_name_type_and_access_but_not_its_docs() {
        use abi_core::schema::Field;
        let field = |doc: &str| Field { name: "x".into(), ty: TypeSchema::Int(None), writable: false, doc: doc.into() };
        let (mut old, mut new) = (class("m.A", "ffi.Object"), class("m.A", "ffi.Object"));
        old.fields.push(field("The x."));
        new.fields.push(field("The x coordinate."));
        let mut changes = Vec::new();
        classes(&[old], &[new], &mut changes);
        assert_eq!(kinds(&changes), [("m.A.x", "docs_changed", Severity::Compatible)]);
    }

    #[test]
    fn identical_classes_have_no_changes() {
        let c = [class("m.Base", "ffi.Object"), class("m.Child", "m.Base")];
        let mut changes = Vec::new();
        classes(&c, &c, &mut changes);
        assert!(changes.is_empty());
    }

    /// The op changes `op` reports between two descriptions written as `abi.op` JSON
    /// (`None`: not an op).
    fn op_changes(old: Option<&str>, new: Option<&str>) -> Vec<(String, &'static str, Severity)> {
        let read = |t: Option<&str>| t.map(|t| OpInfo::from_value(&serde_json::from_str(t).unwrap()).unwrap());
        let (old, new) = (read(old), read(new));
        let mut changes = Vec::new();
        op(&mut Diff { subject: "f", out: &mut changes }, old.as_ref(), new.as_ref());
        changes.iter().map(|c| (c.param.clone().unwrap_or_default(), c.kind.name(), c.kind.severity())).collect()
    }

    fn op_json(outputs: &str, backward: &str, device: &str) -> String {
        format!(
            r#"{{"inputs":["x"],"scalars":[],"outputs":[{outputs}],"inout":[],"backward":{backward},"jax":null,"device":"{device}"}}"#
        )
    }

    #[test]
    fn an_input_that_stops_taking_any_strides_breaks_callers() {
        use Severity::{Breaking, Compatible};
        let compact = op_json(r#"{"name":"y","like":"x"}"#, "null", "cpu");
        let strided = compact.replace(r#""device":"cpu""#, r#""device":"cpu","strided":["x"]"#);
        assert_eq!(op_changes(Some(&strided), Some(&compact)), [("x".to_owned(), "op_input_made_compact", Breaking)]);
        assert_eq!(op_changes(Some(&compact), Some(&strided)), [("x".to_owned(), "op_input_made_strided", Compatible)]);
        assert_eq!(op_changes(Some(&strided), Some(&strided)), []);
    }

    #[test]
    fn an_ops_rules_outputs_in_place_params_backward_and_device_are_its_contract() {
        use Severity::{Breaking, Compatible};
        let y_like_x = r#"{"name":"y","like":"x"}"#;
        let base = op_json(y_like_x, r#""g""#, "cpu");
        assert_eq!(op_changes(Some(&base), Some(&base)), []);
        type Expected = Vec<(&'static str, &'static str, Severity)>;
        let cases: [(String, Expected); 8] = [
            (op_json(r#"{"name":"y","shape":["x.0",2]}"#, r#""g""#, "cpu"), vec![("y", "op_rule_changed", Breaking)]),
            (op_json(r#"{"name":"y","inout":true}"#, r#""g""#, "cpu"), vec![("y", "op_inplace_changed", Breaking)]),
            (op_json("", r#""g""#, "cpu"), vec![("y", "op_output_removed", Breaking)]),
            (
                op_json(&format!(r#"{y_like_x},{{"name":"z","like":"x"}}"#), r#""g""#, "cpu"),
                vec![("z", "op_output_added", Breaking)],
            ),
            (op_json(y_like_x, r#""h""#, "cpu"), vec![("", "op_backward_changed", Breaking)]),
            (op_json(y_like_x, "null", "cpu"), vec![("", "op_backward_changed", Breaking)]),
            (op_json(y_like_x, r#""g""#, "gpu"), vec![("", "op_device_changed", Breaking)]),
            (base.clone(), vec![]),
        ];
        for (new, want) in cases {
            let want: Vec<(String, &str, Severity)> = want.into_iter().map(|(p, k, s)| (p.to_owned(), k, s)).collect();
            assert_eq!(op_changes(Some(&base), Some(&new)), want, "{new}");
        }
        let plain = op_json(y_like_x, "null", "cpu");
        assert_eq!(op_changes(Some(&plain), Some(&base)), [(String::new(), "op_backward_added", Compatible)]);
        assert_eq!(op_changes(None, Some(&base)), [(String::new(), "op_added", Compatible)]);
        assert_eq!(op_changes(Some(&base), None), [(String::new(), "op_removed", Breaking)]);
    }
}
