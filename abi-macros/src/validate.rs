//! Rules the macros' inputs must follow (exported functions, imports, structs); one
//! function per rule.

use quote::ToTokens;
use syn::visit::Visit;
use syn::Type;

use crate::errors::Errors;
use crate::mangle::is_c_identifier;
use crate::model::{DimRule, ExportFn, OpRole, OpType, OutRule, Param};

/// Checks every rule, recording all violations.
pub fn export_fn(f: &ExportFn, errors: &mut Errors) {
    name_is_c_identifier(&f.name, f.name_span, errors);
    if let Some(global) = &f.global {
        global_name_is_dotted(global, errors);
    }
    signature(&f.item.sig, Role::Export, errors);
    not_unsafe(&f.item.sig, Role::Export, errors);
    for p in &f.params {
        param_type_is_passable(&p.ty, Role::Export, errors);
    }
    if let Some(ret) = &f.ret {
        return_type_is_owned(ret, Role::Export, errors);
    }
    if f.iree.is_some() {
        iree_params_are_plain(f, errors);
    }
    defaults_are_trailing(&f.params, errors);
    match &f.op {
        Some(_) => op(f, errors),
        None => op_options_need_op(f, errors),
    }
}

// `backward`, `out` and `inout` describe ops.
fn op_options_need_op(f: &ExportFn, errors: &mut Errors) {
    if let Some((_, span)) = &f.backward {
        errors.error_at(
            *span,
            "`backward` links an op to its gradient: add `op`, as in `#[export_fn(op, backward = ...)]`",
        );
    }
    for p in &f.params {
        if let Some(span) = p.out.as_ref().map(|o| o.1).or(p.inout) {
            errors.error_at(span, "`out` and `inout` mark the tensors of an op: add `op`, as in `#[export_fn(op)]`");
        }
    }
}

/// Checks the rules of an `#[export_fn(op)]`.
fn op(f: &ExportFn, errors: &mut Errors) {
    for p in &f.params {
        op_param_is_carried(p, errors);
    }
    op_returns_unit(f, errors);
    op_device_is_one(f, errors);
    op_rules_name_parameters(f, errors);
    op_order(f, errors);
    op_backward_is_functional(f, errors);
}

// Torch schemas and XLA buffers carry tensors and int/float/bool scalars, and strings as
// attributes, which fieldless enums cross as (checked at compile time by the expansion: the
// macro cannot see that a path names one); a mutable tensor is an output or written in
// place, and says which.
fn op_param_is_carried(p: &Param, errors: &mut Errors) {
    let name = &p.name;
    match p.op_type() {
        OpType::Other => errors.error(
            &p.ty,
            format!("`{name}` cannot be a parameter of an op: ops carry only tensors (HostTensor, StridedTensor, DeviceTensor and their `Mut` forms), int/float/bool scalars (i64, i32, f64, f32, bool) and fieldless enums (`#[derive(AbiEnum)]`)"),
        ),
        OpType::Mutable { .. } => match (&p.out, p.inout) {
            (None, None) => errors.error(
                &p.ty,
                format!("`{name}` is a mutable tensor of an op: mark it `#[abi(out = <shape rule>)]` (an output the op fills) or `#[abi(inout)]` (read and written in place)"),
            ),
            (Some(_), Some(span)) => errors.error_at(span, format!("`{name}` is either an output (`out`) or written in place (`inout`), not both")),
            _ => {}
        },
        OpType::Input { .. } | OpType::Scalar { .. } | OpType::Named => {
            if let Some(span) = p.out.as_ref().map(|o| o.1).or(p.inout) {
                errors.error_at(span, format!("`out` and `inout` mark mutable tensors (HostTensorMut, StridedTensorMut, DeviceTensorMut); `{name}` is not one"));
            }
        }
    }
    if let Some(span) = p.expand {
        errors.error_at(span, "an op's parameters are tensors and scalars: `#[abi(expand)]` has no meaning there");
    }
}

// Destination-passing: an op writes its outputs and returns nothing.
fn op_returns_unit(f: &ExportFn, errors: &mut Errors) {
    let Some(ret) = &f.ret else { return };
    let is_unit = |ty: &Type| matches!(ty, Type::Tuple(t) if t.elems.is_empty());
    let ok = is_unit(ret)
        || matches!(ret, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Result"
            && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                if a.args.len() == 1 && matches!(&a.args[0], syn::GenericArgument::Type(t) if is_unit(t)))));
    if !ok {
        errors.error(ret, "an op writes its outputs into `#[abi(out = ...)]` parameters (destination-passing): return `()` or `Result<()>`");
    }
}

// One device: the framework allocates every output where the inputs are.
fn op_device_is_one(f: &ExportFn, errors: &mut Errors) {
    let device = |p: &Param| match p.op_type() {
        OpType::Input { device } | OpType::Mutable { device } => Some(device),
        _ => None,
    };
    let Some(first) = f.params.iter().find_map(device) else { return };
    if let Some(p) = f.params.iter().find(|p| device(p).is_some_and(|d| d != first)) {
        errors.error(&p.ty, "an op's tensors are all host tensors (HostTensor, StridedTensor...) or all device tensors (DeviceTensor, DeviceTensorMut), not a mix");
    }
}

// A rule names an input tensor (`out = x`, `x.0`) or an integer scalar (`n`).
fn op_rules_name_parameters(f: &ExportFn, errors: &mut Errors) {
    let find = |name: &syn::Ident| f.params.iter().find(|p| p.name == *name);
    let input = |name: &syn::Ident, errors: &mut Errors| match find(name) {
        Some(p) if p.op_role() == OpRole::Input => {}
        Some(_) => {
            let why = "a shape rule takes the shape or an axis of an input tensor";
            errors.error(name, format!("`{name}` is not an input tensor of this op: {why}"));
        }
        None => errors.error(name, format!("`{name}` is no parameter of this op")),
    };
    for p in &f.params {
        let Some((rule, _)) = &p.out else { continue };
        match rule {
            OutRule::Like(x) => input(x, errors),
            OutRule::Shape(dims, _) => {
                for d in dims {
                    match d {
                        DimRule::Axis(x, axis) => {
                            input(x, errors);
                            if axis.base10_parse::<u32>().is_err() {
                                errors.error(axis, "an axis is a non-negative integer");
                            }
                        }
                        DimRule::Scalar(n) => match find(n) {
                            Some(p) if p.op_type() == (OpType::Scalar { int: true }) => {}
                            Some(_) => errors.error(n, format!("`{n}` is not an integer scalar parameter (i64, i32): a bare name in a shape rule is one; write `{n}.<axis>` for an axis of a tensor")),
                            None => errors.error(n, format!("`{n}` is no parameter of this op")),
                        },
                        DimRule::Const(c) => {
                            if c.base10_parse::<u32>().is_err() {
                                errors.error(c, "a constant dimension is a non-negative integer");
                            }
                        }
                    }
                }
            }
        }
    }
}

// jax-tvm-ffi's arg_spec places attributes (scalars) around whole groups: inputs, then
// outputs (in-place tensors among them), scalars before, between or after them.
fn op_order(f: &ExportFn, errors: &mut Errors) {
    // 0: before any tensor, 1: inputs, 2: scalars after the inputs, 3: outputs, 4: scalars after the outputs.
    let mut phase = 0;
    for p in &f.params {
        let name = &p.name;
        let problem = match (p.op_role(), phase) {
            (OpRole::Input, 0 | 1) => {
                phase = 1;
                None
            }
            (OpRole::Input, 2) => Some(format!("input tensor `{name}` comes after a scalar that follows an input: an op's scalars stand before the first tensor, between the last input and the first output, or after the last output")),
            (OpRole::Input, _) => Some(format!("input tensor `{name}` comes after an output: an op takes its input tensors first, then its outputs (`out` and `inout`)")),
            (OpRole::Output | OpRole::InOut, 4) => Some(format!("output `{name}` comes after a scalar that follows an output: an op's scalars stand before the first tensor, between the last input and the first output, or after the last output")),
            (OpRole::Output | OpRole::InOut, _) => {
                phase = 3;
                None
            }
            (OpRole::Scalar, _) => {
                phase = match phase {
                    1 => 2,
                    3 => 4,
                    other => other,
                };
                None
            }
        };
        if let Some(message) = problem {
            errors.error(name, message);
            return;
        }
    }
}

// torch's register_autograd refuses ops that mutate their inputs.
fn op_backward_is_functional(f: &ExportFn, errors: &mut Errors) {
    let Some((path, _)) = &f.backward else { return };
    if let Some(p) = f.params.iter().find(|p| p.op_role() == OpRole::InOut) {
        errors.error(
            path,
            format!("an op with an `inout` parameter (`{}`) cannot have a `backward`: torch's register_autograd refuses ops that mutate their inputs; write a functional op (an `out` parameter) to differentiate", p.name),
        );
    }
}

/// An `iree` export's parameters are scalars, one slot each: `#[abi(expand)]` has no IREE
/// meaning (the types themselves are checked by the `IreeArg` bound, on each parameter),
/// and IREE calls pass every argument, so defaults have none either.
fn iree_params_are_plain(f: &ExportFn, errors: &mut Errors) {
    for p in &f.params {
        if let Some(span) = p.expand {
            errors.error_at(
                span,
                "an `iree` export takes scalars only: `#[abi(expand)]` structs cannot cross an IREE call",
            );
        }
        if let Some(d) = &p.default {
            errors.error_at(d.span, "an `iree` export cannot have defaults: IREE programs pass every argument");
        }
    }
}

/// Defaults are for trailing parameters (a call omits arguments from the end), never on an
/// expanded struct, and a bare `default` (meaning `None`) needs an `Option`.
fn defaults_are_trailing(params: &[crate::model::Param], errors: &mut Errors) {
    let mut first_default: Option<&syn::Ident> = None;
    for p in params {
        match (&p.default, first_default) {
            (Some(d), _) => {
                first_default = first_default.or(Some(&p.name));
                if p.expand.is_some() {
                    errors.error_at(d.span, "`#[abi(default)]` cannot combine with `#[abi(expand)]`: an expanded struct is several arguments");
                }
                if d.value.is_none() && !is_option(&p.ty) {
                    errors.error_at(d.span, "a bare `#[abi(default)]` means `None`, so it needs an `Option<T>` parameter; write `default = <literal>`");
                }
            }
            (None, Some(before)) => errors.error(
                &p.name,
                format!("parameter `{}` needs a default: it follows `{before}`, which has one (defaults are for trailing parameters)", p.name),
            ),
            (None, None) => {}
        }
    }
}

/// Whether `ty` is written `Option<...>` (any path ending in `Option`).
pub fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// A global name is dotted identifiers (`mylib.add`): `tvm_ffi.init_ffi_api("mylib", ...)`
/// turns the part after the namespace into a Python attribute.
fn global_name_is_dotted(global: &syn::LitStr, errors: &mut Errors) {
    let name = global.value();
    if !is_c_identifier(&name) && !is_dotted_name(&name) {
        errors.error(global, format!("global name `{name}` must be dot-separated identifiers, such as \"mylib.add\""));
    }
}

/// Whether `name` is two or more C identifiers joined by dots.
fn is_dotted_name(name: &str) -> bool {
    name.contains('.') && name.split('.').all(is_c_identifier)
}

/// Whether a signature is being exported, imported or reflected as a method (for the
/// wording of errors).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Export,
    Import,
    /// A method of a `#[methods]` block: reflected on its class, not exported by name.
    Method,
}

impl Role {
    fn verb(self) -> &'static str {
        match self {
            Role::Export => "exported",
            Role::Import => "imported",
            Role::Method => "reflected",
        }
    }

    /// What the role's items are called in a message.
    fn noun(self) -> &'static str {
        match self {
            Role::Method => "methods",
            Role::Export | Role::Import => "functions",
        }
    }
}

/// Checks every rule of an import set, recording all violations.
pub fn import_set(set: &crate::model::ImportSet, errors: &mut Errors) {
    for f in &set.fns {
        // A dotted name (`mylib.add`) is a global registry name, found by `bind_globals`.
        if !is_dotted_name(&f.name) {
            name_is_c_identifier(&f.name, f.name_span, errors);
        }
        signature(&f.sig, Role::Import, errors);
        for p in &f.params {
            param_type_is_passable(&p.ty, Role::Import, errors);
        }
        if let Some(ret) = &f.ret {
            return_type_is_owned(ret, Role::Import, errors);
        }
        fallback_needs_optional(f, errors);
    }
    import_names_are_unique(set, errors);
}

// A fallback only runs when an optional import is absent.
fn fallback_needs_optional(f: &crate::model::ImportFn, errors: &mut Errors) {
    if let (Some(fb), false) = (&f.fallback, f.optional) {
        errors.error(fb, "`fallback` only applies to optional imports; add `optional`");
    }
}

// Each import becomes a method and a struct field.
fn import_names_are_unique(set: &crate::model::ImportSet, errors: &mut Errors) {
    for (i, f) in set.fns.iter().enumerate() {
        if set.fns[..i].iter().any(|g| g.sig.ident == f.sig.ident) {
            errors.error(&f.sig.ident, format!("duplicate import `{}`", f.sig.ident));
        }
    }
}

/// Rules shared by exports and imports: one concrete, synchronous, fixed-arity signature.
fn signature(sig: &syn::Signature, role: Role, errors: &mut Errors) {
    not_generic(sig, role, errors);
    not_async(sig, role, errors);
    not_variadic(sig, role, errors);
}

// The exported name becomes part of a C symbol: it must be a C identifier.
fn name_is_c_identifier(name: &str, span: proc_macro2::Span, errors: &mut Errors) {
    if !is_c_identifier(name) {
        errors.error_at(
            span,
            format!(
                "invalid export name `{name}`: use a C identifier (letters, digits, `_`, not starting with a digit)"
            ),
        );
    }
}

// A shim has one concrete signature.
fn not_generic(sig: &syn::Signature, role: Role, errors: &mut Errors) {
    let g = &sig.generics;
    let (v, n) = (role.verb(), role.noun());
    if let Some(p) = g.type_params().next() {
        let hint = match role {
            Role::Export => "export one non-generic wrapper per type",
            Role::Import => "declare one import per concrete signature",
            Role::Method => "reflect one non-generic method per type",
        };
        errors.error(p, format!("generic {n} cannot be {v}; {hint}"));
    } else if let Some(p) = g.const_params().next() {
        let one = if role == Role::Method { "method" } else { "function" };
        errors.error(p, format!("const-generic {n} cannot be {v}; use one {one} per value"));
    } else if let Some(w) = &g.where_clause {
        errors.error(w, format!("{n} with `where` clauses cannot be {v}; use a concrete signature"));
    }
}

// The packed convention is synchronous.
fn not_async(sig: &syn::Signature, role: Role, errors: &mut Errors) {
    if let Some(a) = &sig.asyncness {
        let (v, n) = (role.verb(), role.noun());
        errors.error(a, format!("async {n} cannot be {v}: packed calls are synchronous; use a blocking function"));
    }
}

// Hosts cannot uphold an unsafe contract they do not know.
fn not_unsafe(sig: &syn::Signature, role: Role, errors: &mut Errors) {
    if let Some(u) = &sig.unsafety {
        let hint = match role {
            Role::Method => "reflect a safe method that checks the contract",
            Role::Export | Role::Import => "export a safe wrapper that checks the contract",
        };
        errors.error(u, format!("unsafe {} cannot be {}; {hint}", role.noun(), role.verb()));
    }
}

fn not_variadic(sig: &syn::Signature, role: Role, errors: &mut Errors) {
    if let Some(v) = &sig.variadic {
        errors.error(v, format!("variadic {} cannot be {}; take a `Vec<T>` instead", role.noun(), role.verb()));
    }
}

// Arguments are borrowed views the callee cannot mutate, and `impl Trait` has no single type.
fn param_type_is_passable(ty: &Type, role: Role, errors: &mut Errors) {
    struct Check<'e> {
        errors: &'e mut Errors,
        role: Role,
    }
    impl<'ast> Visit<'ast> for Check<'_> {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            if r.mutability.is_some() {
                // A slice written in place is a tensor an export may write.
                let instead = match &*r.elem {
                    syn::Type::Slice(s) if !matches!(self.role, Role::Import) => format!(
                        "for an array written in place take `HostTensorMut<'_, {}, 1>`",
                        s.elem.to_token_stream()
                    ),
                    _ => "take the value, or return the new value".to_owned(),
                };
                let msg = format!(
                    "`&mut` parameters cannot be {}: arguments are borrowed read-only; {instead}",
                    self.role.verb()
                );
                self.errors.error(r, msg);
            }
            syn::visit::visit_type_reference(self, r);
        }
        fn visit_type_impl_trait(&mut self, t: &'ast syn::TypeImplTrait) {
            let msg = format!("`impl Trait` parameters cannot be {}; name a concrete type", self.role.verb());
            self.errors.error(t, msg);
        }
    }
    Check { errors, role }.visit_type(ty);
}

// Results outlive the call, so they must own their data.
fn return_type_is_owned(ty: &Type, role: Role, errors: &mut Errors) {
    struct Check<'e> {
        errors: &'e mut Errors,
        verb: &'static str,
    }
    impl<'ast> Visit<'ast> for Check<'_> {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            let msg = format!(
                "borrowed return types cannot be {}: results outlive the call; use an owned type such as `String` or `Vec<u8>`",
                self.verb
            );
            self.errors.error(r, msg);
        }
        fn visit_type_impl_trait(&mut self, t: &'ast syn::TypeImplTrait) {
            let msg = format!("`impl Trait` return types cannot be {}; name a concrete type", self.verb);
            self.errors.error(t, msg);
        }
    }
    Check { errors, verb: role.verb() }.visit_type(ty);
}

/// Checks every rule of a derived enum, recording all violations.
pub fn abi_enum(e: &crate::model::EnumDef, errors: &mut Errors) {
    if let Some((span, message)) = e.not_an_enum {
        errors.error_at(span, message);
    }
    if let Some(p) = e.generics.params.first() {
        errors.error(
            p,
            "a generic enum cannot derive AbiEnum: its names are fixed when it compiles; make one enum per type",
        );
    }
    if let Some(rule) = &e.rename_all {
        if crate::case::apply(&rule.value(), "A").is_none() {
            let rules = crate::case::RULES.map(|r| format!("\"{r}\""));
            errors.error(rule, format!("unknown rename_all rule; use one of {}", rules.join(", ")));
        }
    }
    for v in &e.variants {
        fields_own_their_data(&v.fields, "AbiEnum: a variant owns its data", errors);
        keys_are_valid(&v.fields, errors);
        keys_are_unique(&v.fields, errors);
        if let Some(expr) = &v.discriminant {
            errors.error(expr, "an AbiEnum crosses as the names of its variants, not numbers: remove the discriminant");
        }
    }
    let names = e.names();
    for (i, (name, span)) in names.iter().enumerate() {
        if name.is_empty() {
            errors.error_at(*span, "a variant's name cannot be empty");
        } else if let Some(j) = names[..i].iter().position(|(other, _)| other == name) {
            errors.error_at(
                *span,
                format!(
                    "`{}` and `{}` both cross as \"{name}\": each variant needs its own name",
                    e.variants[j].ident, e.variants[i].ident
                ),
            );
        }
    }
}

pub fn abi_error(e: &crate::model::ErrorDef, errors: &mut Errors) {
    if let Some((span, message)) = e.not_an_enum {
        errors.error_at(span, message);
    }
    if let Some(p) = e.generics.params.first() {
        errors.error(p, "a generic error type cannot derive AbiError: its kinds are fixed when it compiles");
    }
    let builtins = abi_shared::BUILTIN_ERROR_KINDS.join(", ");
    for v in &e.variants {
        if let Some(base) = &v.base {
            if !base.get_ident().is_some_and(|b| abi_shared::BUILTIN_ERROR_KINDS.contains(&b.to_string().as_str())) {
                errors.error(
                    base,
                    format!("a base is one of the builtin kinds tvm_ffi maps to Python's exceptions: {builtins}"),
                );
            }
        }
        if let Some(kind) = &v.kind {
            let text = kind.value();
            if abi_shared::BUILTIN_ERROR_KINDS.contains(&text.as_str()) {
                errors.error(
                    kind,
                    format!("`{text}` is a builtin kind: hosts would take `{}` for it; keep the derived kind and write `base = {text}`", v.ident),
                );
            } else if text.is_empty() || text.contains('\0') {
                errors.error(kind, "a kind is a non-empty text without NULs");
            }
        }
    }
    for (i, v) in e.variants.iter().enumerate() {
        let Some(kind) = &v.kind else { continue };
        if let Some(other) = e.variants[..i].iter().find(|o| o.kind.as_ref().is_some_and(|k| k.value() == kind.value()))
        {
            errors.error(
                kind,
                format!(
                    "`{}` and `{}` both raise the kind {:?}: each variant needs its own",
                    other.ident,
                    v.ident,
                    kind.value()
                ),
            );
        }
    }
}

pub fn abi_struct(s: &crate::model::StructDef, errors: &mut Errors) {
    let borrows = fields_own_their_data(&s.fields, "AbiStruct: a struct owns its data", errors);
    struct_not_generic(&s.generics, borrows, errors);
    keys_are_valid(&s.fields, errors);
    keys_are_unique(&s.fields, errors);
}

// One concrete layout per struct, as for exported functions. A lifetime parameter that only
// serves borrowed fields is the same mistake as those fields, already reported.
fn struct_not_generic(generics: &syn::Generics, borrows: bool, errors: &mut Errors) {
    let reported = |p: &&syn::GenericParam| borrows && matches!(p, syn::GenericParam::Lifetime(_));
    if let Some(p) = generics.params.iter().find(|p| !reported(p)) {
        errors.error(
            p,
            "structs with generic or lifetime parameters cannot derive AbiStruct; fields must own their data",
        );
    }
}

// A struct is converted from a call's arguments and outlives them. Returns whether any
// field borrows.
fn fields_own_their_data(fields: &[crate::model::Field], owner: &str, errors: &mut Errors) -> bool {
    struct Check<'e>(&'e mut Errors, bool, &'e str);
    impl<'ast> Visit<'ast> for Check<'_> {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            let msg = format!("borrowed fields cannot derive {}; use `String` or `Vec<u8>`", self.2);
            self.0.error(r, msg);
            self.1 = true;
        }
    }
    let mut check = Check(errors, false, owner);
    for f in fields {
        check.visit_type(&f.ty);
    }
    check.1
}

// Keys appear in JSON and in dotted argument names (`p.x`).
fn keys_are_valid(fields: &[crate::model::Field], errors: &mut Errors) {
    for f in fields.iter().filter(|f| f.renamed) {
        let ok = !f.key.is_empty() && f.key.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
        if !ok {
            errors.error_at(f.key_span, format!("invalid key `{}`: use letters, digits and `_`", f.key));
        }
    }
}

// Renames may not collide with each other or with field names.
fn keys_are_unique(fields: &[crate::model::Field], errors: &mut Errors) {
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].iter().any(|g| g.key == f.key) {
            errors.error_at(f.key_span, format!("duplicate key `{}`: every field needs its own reflected key", f.key));
        }
    }
}

/// Checks every rule of a type deriving `Object`, recording all violations.
pub fn object(o: &crate::model::ObjectDef, errors: &mut Errors) {
    match &o.type_key {
        None => errors
            .error(&o.ident, "`#[derive(Object)]` needs a unique type key: add `#[abi(type_key = \"mylib.Name\")]`"),
        Some(key) => type_key_is_valid(key, errors),
    }
    if let Some(p) = o.generics.params.first() {
        errors.error(p, "generic structs cannot derive Object: the type table holds one layout per type key");
    }
    parent_is_first(o, errors);
}

// Keys name Python classes (`mylib.Counter` -> class `Counter` in module `mylib`).
fn type_key_is_valid(key: &syn::LitStr, errors: &mut Errors) {
    let text = key.value();
    let segment_ok = |s: &str| {
        s.chars().next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
    };
    if text.split('.').count() < 2 || !text.split('.').all(segment_ok) {
        errors.error(key, format!("invalid type key `{text}`: use `namespace.Name`, dot-separated identifiers"));
    } else if text.starts_with("ffi.") {
        errors.error(key, format!("invalid type key `{text}`: the `ffi.` namespace belongs to tvm-ffi's own types"));
    }
}

// A child embeds its parent first, so a pointer to the child is a pointer to the parent.
fn parent_is_first(o: &crate::model::ObjectDef, errors: &mut Errors) {
    for (i, f) in o.fields.iter().enumerate() {
        let Some(span) = f.parent else { continue };
        if i != 0 {
            errors
                .error_at(span, "the `parent` field must be the first field: the child embeds its parent at offset 0");
        } else if f.access != crate::model::Access::Hidden {
            errors.error_at(span, "the `parent` field is not reflected itself: its fields are inherited");
        }
    }
}

/// Checks every rule of a `#[methods]` block, recording all violations.
pub fn methods(block: &crate::model::MethodsBlock, errors: &mut Errors) {
    use crate::model::MethodKind;
    for (i, m) in block.methods.iter().enumerate() {
        signature(&m.sig, Role::Method, errors);
        not_unsafe(&m.sig, Role::Method, errors);
        let skip = usize::from(m.kind == MethodKind::Instance);
        for p in &m.params[skip..] {
            param_type_is_passable(&p.ty, Role::Method, errors);
        }
        if let Some(ret) = &m.ret {
            return_type_is_owned(ret, Role::Method, errors);
        }
        defaults_are_trailing(&m.params, errors);
        if block.methods[..i].iter().any(|n| n.name == m.name) {
            let what = if m.kind == MethodKind::Init { "a second `#[abi(init)]`" } else { "a duplicate method name" };
            errors.error(&m.ident, format!("{what}: every reflected method needs its own name (`{}`)", m.name));
        }
    }
}
