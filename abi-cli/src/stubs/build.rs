//! Builds the package's model ([`Package`]) from a listing: names the classes, named
//! tuples, exception classes and the module-level names of the library's functions, reads
//! each export's signature and op description, and writes each function's stubs.

use std::collections::HashSet;

use abi_core::schema::{Class, Metadata, TypeSchema};
use abi_shared::vocab::Kind;

use super::errors::Errors;
use super::model::{
    ClassItem, FieldItem, Function, Method, MethodCall, Package, Param, Receiver, Record, Route, StubDef, TaggedItem,
    VariantItem,
};
use super::op_stubs;
use super::ops::{self, Op};
use super::records::{result_converter, Helpers, Records};
use super::signature::{annotation, help_text, method_receiver, py_signature, with_tensor_notes, Flow};
use super::{exposed, parents_first, ClassNames};
use crate::read::Listing;

/// The model of `listing`'s package.
pub fn package(listing: &Listing, package: &str, lib_name: &str) -> Package {
    let class_names = ClassNames::new(listing);
    let records = Records::new(listing, &class_names);
    let errors = error_classes(listing, &class_names, &records);
    let mut natives = Natives::new(listing, &class_names, &records);
    let mut helpers = Helpers::default();
    let classes: Vec<ClassItem> = parents_first(&listing.classes)
        .into_iter()
        .map(|c| class_item(c, &class_names, &records, &errors, &mut natives, &mut helpers))
        .collect();
    let mut functions = Vec::new();
    for e in exposed(listing) {
        let name = e.name.clone();
        let raises = errors.raises(e.metadata.as_ref());
        let doc = with_tensor_notes(e.doc.as_deref().unwrap_or_default(), e.metadata.as_ref(), Receiver::None);
        let doc = noted(doc, raises.as_deref());
        let help = help_text(e).map(|help| noted(help, raises.as_deref()));
        let sig = e.metadata.as_ref().and_then(|m| py_signature(m, Receiver::None, &class_names, &records));
        let op = e.metadata.as_ref().and_then(Op::of);
        let function = match (sig, op) {
            (Some(sig), Some(op)) => {
                let native = natives.name(&name);
                let help = ops::py_help(&op, &name, &sig, help.as_deref());
                let route = ops::route(&op, &sig, native, listing);
                Function {
                    stubs: op_stubs::functional(&op, &sig),
                    help: Some(help),
                    route: Route::Op(route),
                    name,
                    doc,
                }
            }
            (Some(sig), None) => {
                let native = natives.name(&name);
                let convert = sig.result.as_ref().and_then(|t| result_converter(&records, t, &mut helpers));
                let numpy_from = numpy_from(e.metadata.as_ref(), sig.result.as_ref());
                // A tensor result is the array type of the call's tensor arguments (numpy
                // in, numpy out; torch in, torch out), which no one annotation says.
                let ret = if numpy_from.is_empty() { sig.ret.clone() } else { Kind::Any.stub().to_owned() };
                let stub = StubDef { params: sig.params(true), ret };
                let arrays = e.metadata.as_ref().is_some_and(|m| m.params().iter().any(|(_, t)| takes_arrays(t)));
                let readable = e.metadata.as_ref().map(|m| m.read_only.clone()).unwrap_or_default();
                let readable = sig.call_args().into_iter().filter(|a| readable.contains(a)).collect();
                let tensors = e.metadata.as_ref().map(tensor_positions).unwrap_or_default();
                let route = Route::Packed {
                    native,
                    params: sig.params(false),
                    args: sig.call_args(),
                    convert,
                    arrays,
                    readable,
                    keep_gil: e.metadata.as_ref().is_some_and(|m| !m.releases_gil()),
                    numpy_from,
                    tensors,
                    text: e.metadata.as_ref().is_some_and(|m| m.params().iter().any(|(_, t)| takes_text(t))),
                };
                Function { help, stubs: vec![stub], route, name, doc }
            }
            (None, _) => Function { help, stubs: vec![untyped_stub()], route: Route::Library, name, doc },
        };
        functions.push(function);
    }
    let mut all: Vec<String> = exposed(listing).map(|e| e.name.clone()).collect();
    all.extend(listing.classes.iter().filter_map(|c| class_names.get(&c.key)).map(str::to_owned));
    all.extend(records.names());
    all.extend(errors.names());
    Package {
        name: package.to_owned(),
        lib_name: lib_name.to_owned(),
        enums: records.enums().iter().cloned().collect(),
        tagged: tagged_items(&records, &class_names),
        records: record_items(&records, &class_names),
        errors: errors.into_classes(),
        classes,
        functions,
        has_ops: ops::any(listing),
        all,
        converters: helpers.into_defs(),
    }
}

/// The exception classes of the library's error types, named apart from its exports,
/// classes, named tuples and enum classes.
fn error_classes(listing: &Listing, classes: &ClassNames, records: &Records) -> Errors {
    let mut taken: HashSet<String> = listing.exports.iter().map(|e| e.name.clone()).collect();
    taken.extend(listing.classes.iter().filter_map(|c| classes.get(&c.key)).map(str::to_owned));
    taken.extend(records.names());
    Errors::new(&listing.errors, |name| taken.contains(name))
}

/// `text` with `note` (when there is one) as its last paragraph.
fn noted(text: String, note: Option<&str>) -> String {
    match note {
        None => text,
        Some(note) if text.is_empty() => note.to_owned(),
        Some(note) => format!("{text}\n\n{note}"),
    }
}

/// Whether a parameter of type `t` may be given an array: a tensor, or any value, alone or
/// inside a container.
fn takes_arrays(t: &TypeSchema) -> bool {
    match t {
        TypeSchema::Tensor(_) | TypeSchema::Any => true,
        TypeSchema::Function(_) => false,
        other => other.args().into_iter().any(takes_arrays),
    }
}

/// Whether a value of `t` may hold a `str` (or any value; a bytes parameter takes a `str`
/// as its UTF-8, as `tvm_ffi` passes it).
fn takes_text(t: &TypeSchema) -> bool {
    match t {
        TypeSchema::Str | TypeSchema::Bytes | TypeSchema::Any => true,
        TypeSchema::Function(_) => false,
        other => other.args().into_iter().any(takes_text),
    }
}

/// Whether a value of `t` is a tensor or an `Optional` of one.
fn is_tensor(t: &TypeSchema) -> bool {
    match t {
        TypeSchema::Optional(inner) => matches!(**inner, TypeSchema::Tensor(_)),
        t => matches!(t, TypeSchema::Tensor(_)),
    }
}

/// The positions of the parameters taking a tensor, where the wrapper takes a buffer
/// object as a numpy array over its memory (the Python door reads it in place for the
/// typed tensor views it serves).
fn tensor_positions(meta: &Metadata) -> Vec<usize> {
    meta.params().iter().enumerate().filter(|(_, (_, t))| is_tensor(t)).map(|(i, _)| i).collect()
}

/// The arguments of a function returning a tensor that take tensors (a numpy array among
/// them makes the result a numpy array); none for other results.
fn numpy_from(meta: Option<&Metadata>, result: Option<&TypeSchema>) -> Vec<String> {
    match (meta, result) {
        (Some(meta), Some(result)) if is_tensor(result) => {
            meta.params().into_iter().filter(|(_, t)| is_tensor(t)).map(|(name, _)| name).collect()
        }
        _ => Vec::new(),
    }
}

/// `*args: Any -> Any`: the stub of a function whose signature is not published.
fn untyped_stub() -> StubDef {
    StubDef { params: vec![Param::plain("*args", Some(Kind::Any.stub().to_owned()))], ret: Kind::Any.stub().to_owned() }
}

fn record_items(records: &Records, classes: &ClassNames) -> Vec<Record> {
    records
        .iter()
        .map(|(name, fields)| Record {
            name: name.to_owned(),
            like: records.argument(name).unwrap_or_default(),
            fields: fields
                .iter()
                .map(|(field, t)| {
                    (
                        field.clone(),
                        annotation(t, classes, records, Flow::Result),
                        annotation(t, classes, records, Flow::In),
                    )
                })
                .collect(),
        })
        .collect()
}

/// The classes of the enums with data, their fields annotated as a wrapper's result gives
/// them (a sequence for a list, a mapping for a map), which the constructor takes too, as a
/// named tuple's fields are.
fn tagged_items(records: &Records, classes: &ClassNames) -> Vec<TaggedItem> {
    records
        .tagged()
        .iter()
        .map(|class| TaggedItem {
            name: class.name.clone(),
            like: class.like.clone(),
            doc: class.doc.clone(),
            variants: class
                .variants
                .iter()
                .map(|v| VariantItem {
                    name: v.name.clone(),
                    tag: v.tag.clone(),
                    doc: v.doc.clone(),
                    positional: v.positional,
                    fields: v
                        .fields
                        .iter()
                        .map(|(field, t)| (field.clone(), annotation(t, classes, records, Flow::Result)))
                        .collect(),
                    params: v.fields.iter().map(|(_, t)| annotation(t, classes, records, Flow::In)).collect(),
                })
                .collect(),
        })
        .collect()
}

fn class_item(
    class: &Class,
    classes: &ClassNames,
    records: &Records,
    errors: &Errors,
    natives: &mut Natives,
    helpers: &mut Helpers,
) -> ClassItem {
    let name = classes.get(&class.key).unwrap_or_default().to_owned();
    // A field Python cannot name (the file may hold any text) is no attribute to declare.
    let fields = class
        .fields
        .iter()
        .filter(|f| super::is_python_name(&f.name))
        .map(|f| FieldItem {
            name: f.name.clone(),
            annotation: annotation(&f.ty, classes, records, Flow::Out),
            writable: f.writable,
            doc: f.doc.clone(),
        })
        .collect();
    let mut methods = Vec::new();
    for m in &class.methods {
        let Some((py_name, receiver)) = method_receiver(m) else { continue };
        let sig = py_signature(&m.metadata, receiver, classes, records);
        let doc =
            noted(with_tensor_notes(&m.doc, Some(&m.metadata), receiver), errors.raises(Some(&m.metadata)).as_deref());
        let stub = match &sig {
            Some(sig) => StubDef { params: sig.params(true), ret: sig.ret.clone() },
            None => untyped_stub(),
        };
        let call = sig.map(|sig| MethodCall {
            native: natives.name(&format!("{name}_{py_name}")),
            method: m.name.clone(),
            params: sig.params(false),
            args: sig.call_args(),
            convert: sig.result.as_ref().and_then(|t| result_converter(records, t, helpers)),
        });
        methods.push(Method { py_name: py_name.to_owned(), receiver, doc, stub, call });
    }
    ClassItem { key: class.key.clone(), base: classes.base(class), doc: class.doc.clone(), fields, methods, name }
}

/// Module-level names of the library's functions behind the wrappers (`_native_add`),
/// unlike every export, class and parameter name in the module.
struct Natives {
    taken: std::collections::BTreeSet<String>,
}

impl Natives {
    fn new(listing: &Listing, classes: &ClassNames, records: &Records) -> Natives {
        let mut taken: std::collections::BTreeSet<String> = listing.exports.iter().map(|e| e.name.clone()).collect();
        taken.extend(records.names());
        taken.extend(listing.classes.iter().filter_map(|c| classes.get(&c.key)).map(str::to_owned));
        let mut param_names = |meta: &abi_core::schema::Metadata| {
            if let Some(sig) = py_signature(meta, Receiver::None, classes, records) {
                taken.extend(sig.names().map(str::to_owned));
            }
        };
        listing.exports.iter().filter_map(|e| e.metadata.as_ref()).for_each(&mut param_names);
        listing.classes.iter().flat_map(|c| &c.methods).for_each(|m| param_names(&m.metadata));
        Natives { taken }
    }

    /// A fresh name for the function behind `what`.
    fn name(&mut self, what: &str) -> String {
        let mut name = format!("_native_{what}");
        while self.taken.contains(&name) {
            name.push('_');
        }
        self.taken.insert(name.clone());
        name
    }
}
