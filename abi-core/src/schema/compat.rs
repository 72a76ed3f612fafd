//! Compatibility between types and signatures: a relation, not equality (docs/ABI.md
//! section 11). `target.accepts(source)` holds when every value of `source` is a value
//! `target` takes; [`check_binding`] applies it to a declared import and the callee's
//! published signature.

use abi_shared::vocab::Kind;

use super::types::{FnType, TaggedVariant, TypeSchema};

impl TypeSchema {
    /// Whether every value of type `source` is a value of `self`: `Any` accepts
    /// everything, `Optional[T]` accepts `None` and what `T` accepts, an untyped
    /// `ffi.Function` any function, a typed one a function whose parameters accept its
    /// parameters (contravariant) and whose result it accepts (covariant); containers
    /// compare element-wise; `ffi.Object` accepts every object type; a typed tensor a
    /// tensor whose dtype and rank agree where both sides name them; a fieldless enum the
    /// names it lists (and a string every name); an enum with data the variants it has
    /// (by name, field by field); other types only their own kind (number
    /// widths are checked per call). Nothing but `Any` accepts `Any`.
    pub fn accepts(&self, source: &TypeSchema) -> bool {
        use TypeSchema as T;
        match (self, source) {
            (T::Any, _) => true,
            (_, T::Any) => false,
            (_, T::Variant(members)) => members.iter().all(|s| self.accepts(s)),
            (T::Variant(members), s) => members.iter().any(|t| t.accepts(s)),
            (T::Optional(_), T::None) => true,
            (T::Optional(t), T::Optional(s)) => t.accepts(s),
            (T::Optional(t), s) => t.accepts(s),
            (t, T::Optional(s)) => t.accepts(&T::None) && t.accepts(s),
            (T::Function(None), T::Function(_)) => true,
            (T::Function(Some(t)), T::Function(Some(s))) => t.accepts(s),
            // An `ffi.List` and an `ffi.Array` convert to each other (C++ and abi both take
            // either for either), as do an `ffi.Dict` and an `ffi.Map`.
            (T::Array(t) | T::List(t), T::Array(s) | T::List(s)) => t.accepts(s),
            (T::Map(tk, tv) | T::Dict(tk, tv), T::Map(sk, sv) | T::Dict(sk, sv)) => tk.accepts(sk) && tv.accepts(sv),
            (T::Named { key: a, args: x }, T::Named { key: b, args: y }) => a == b && all_accept(x, y),
            (T::Object, s) => s.is_object(),
            (T::Tensor(t), T::Tensor(s)) => t.accepts(s),
            // A fieldless enum takes its own names: every name of the source, whatever the
            // Rust names; a plain string may be none of them (a string takes every name).
            (T::Enum { names: t, .. }, T::Enum { names: s, .. }) => s.iter().all(|n| t.contains(n)),
            (T::Enum { .. }, _) => false,
            // An enum with data takes each variant of the source that it has under the same
            // name, with as many fields, each taking the source's.
            (T::Tagged { variants: t, .. }, T::Tagged { variants: s, .. }) => s.iter().all(|s| {
                t.iter().any(|t| {
                    t.name == s.name
                        && t.fields.len() == s.fields.len()
                        && t.fields.iter().zip(&s.fields).all(|((_, t), (_, s))| t.accepts(s))
                })
            }),
            (T::Tagged { .. }, _) => false,
            // Tuples and structs by their items; other kinds by kind alone: number widths
            // are checked per call (docs/ABI.md section 11).
            (t, s) if t.kind() == Some(Kind::Tuple) && s.kind() == Some(Kind::Tuple) => {
                let (t, s) = (t.args(), s.args());
                t.len() == s.len() && t.iter().zip(s).all(|(t, s)| t.accepts(s))
            }
            (t, s) => t.kind().is_some() && t.kind() == s.kind(),
        }
    }

    /// Whether values of this type are objects (what `ffi.Object` accepts).
    pub fn is_object(&self) -> bool {
        matches!(
            self,
            TypeSchema::Object
                | TypeSchema::Error
                | TypeSchema::Function(_)
                | TypeSchema::Array(_)
                | TypeSchema::Tagged { .. }
                | TypeSchema::Map(..)
                | TypeSchema::List(_)
                | TypeSchema::Dict(..)
                | TypeSchema::Shape
                | TypeSchema::Tensor(_)
                | TypeSchema::Named { .. }
        )
    }

    /// Whether the two types accept each other (the same type, however spelled).
    pub fn same_as(&self, other: &TypeSchema) -> bool {
        self.accepts(other) && other.accepts(self)
    }
}

impl TypeSchema {
    /// Where an enum inside this type differs from the one at the same place in `new`, said
    /// in words (`enum Figure: variant "Ellipse" added`, `enum Interp: name "area"
    /// removed`), for messages that would otherwise print both whole types; `None` when no
    /// enum of one name differs, or the two types differ in shape first.
    pub fn enum_difference(&self, new: &TypeSchema) -> Option<String> {
        use TypeSchema as T;
        match (self, new) {
            (T::Enum { name, names: o, .. }, T::Enum { name: n2, names: n, .. }) if name == n2 => {
                let quoted = |v: Vec<&String>| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
                let added: Vec<&String> = n.iter().filter(|x| !o.contains(x)).collect();
                let removed: Vec<&String> = o.iter().filter(|x| !n.contains(x)).collect();
                let mut parts = Vec::new();
                if !added.is_empty() {
                    parts.push(format!("name {} added", quoted(added)));
                }
                if !removed.is_empty() {
                    parts.push(format!("name {} removed", quoted(removed)));
                }
                (!parts.is_empty()).then(|| format!("enum {name}: {}", parts.join("; ")))
            }
            (T::Tagged { name, variants: ov }, T::Tagged { name: n2, variants: nv }) if name == n2 => {
                tagged_difference(name, ov, nv)
            }
            (T::Function(Some(o)), T::Function(Some(n))) if o.params.len() == n.params.len() => o
                .params
                .iter()
                .chain([&o.ret])
                .zip(n.params.iter().chain([&n.ret]))
                .find_map(|(o, n)| o.enum_difference(n)),
            (o, n) if o.kind() == n.kind() && o.kind().is_some() => {
                let (oa, na) = (o.args(), n.args());
                match oa.len() == na.len() {
                    true => oa.iter().zip(na).find_map(|(o, n)| o.enum_difference(n)),
                    false => None,
                }
            }
            _ => None,
        }
    }
}

// How an enum with data changed: its variants added and removed, each kept one's fields
// added, removed, reordered or retyped (an enum inside a field is described instead).
fn tagged_difference(name: &str, ov: &[TaggedVariant], nv: &[TaggedVariant]) -> Option<String> {
    let find = |vs: &[TaggedVariant], name: &str| vs.iter().find(|v| v.name == name).cloned();
    let names = |vs: Vec<&TaggedVariant>| vs.iter().map(|v| format!("{:?}", v.name)).collect::<Vec<_>>().join(", ");
    let added: Vec<&TaggedVariant> = nv.iter().filter(|v| find(ov, &v.name).is_none()).collect();
    let removed: Vec<&TaggedVariant> = ov.iter().filter(|v| find(nv, &v.name).is_none()).collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("variant {} added", names(added)));
    }
    if !removed.is_empty() {
        parts.push(format!("variant {} removed", names(removed)));
    }
    for o in ov {
        let Some(n) = find(nv, &o.name) else { continue };
        if o.fields == n.fields {
            continue;
        }
        let field_names = |v: &TaggedVariant| v.fields.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>().join(", ");
        let same_names = o.fields.iter().map(|(f, _)| f).eq(n.fields.iter().map(|(f, _)| f));
        let retyped = o.fields.iter().zip(&n.fields).find(|((_, ot), (_, nt))| ot != nt);
        match retyped.filter(|_| same_names) {
            Some(((f, ot), (_, nt))) => match ot.enum_difference(nt) {
                Some(d) => parts.push(format!("variant {:?} field {f}: {d}", o.name)),
                None => parts.push(format!(
                    "variant {:?} field {f} retyped: {} -> {}",
                    o.name,
                    ot.python_layout(),
                    nt.python_layout()
                )),
            },
            None => parts.push(format!("variant {:?} fields ({}) -> ({})", o.name, field_names(o), field_names(&n))),
        }
    }
    (!parts.is_empty()).then(|| format!("enum {name}: {}", parts.join("; ")))
}

fn all_accept(targets: &[TypeSchema], sources: &[TypeSchema]) -> bool {
    targets.len() == sources.len() && targets.iter().zip(sources).all(|(t, s)| t.accepts(s))
}

impl FnType {
    /// Whether a function of type `source` can stand where `self` is expected: the same
    /// arity, each of `source`'s parameters accepting `self`'s, and `self`'s result
    /// accepting `source`'s.
    pub fn accepts(&self, source: &FnType) -> bool {
        all_accept(&source.params, &self.params) && self.ret.accepts(&source.ret)
    }
}

/// Where a declared import and its callee disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The declared parameter count is not one the callee takes.
    Arity {
        /// Declared.
        ours: usize,
        /// Published.
        theirs: usize,
        /// How many the callee requires (fewer than `theirs` when its trailing parameters
        /// have defaults).
        required: usize,
    },
    /// Parameter `index` of the callee does not accept the declared type.
    Param {
        /// The slot.
        index: usize,
        /// Declared.
        ours: TypeSchema,
        /// Published.
        theirs: TypeSchema,
    },
    /// The declared result does not accept the callee's. (Not named `Result`: a public
    /// item of that name makes rustc spell `std::result::Result` in every user's errors.)
    Return {
        /// Declared.
        ours: TypeSchema,
        /// Published.
        theirs: TypeSchema,
    },
}

/// Checks an import declared as `ours` against the callee's published `theirs`. A
/// parameter fits when the callee's type accepts the declared one, or the declared one is
/// `Any` (the callee checks the value when called); the result fits when the declared type
/// accepts the callee's, or the callee's is `Any` (converted, and checked, when it
/// arrives). Widths are not in schemas: they are checked at call time. The declaration may
/// leave out trailing parameters the callee gives defaults: `theirs_required` is how many
/// leading ones it requires.
pub fn check_binding(ours: &FnType, theirs: &FnType, theirs_required: usize) -> Vec<Mismatch> {
    let (n, all) = (ours.params.len(), theirs.params.len());
    if n > all || n < theirs_required.min(all) {
        return vec![Mismatch::Arity { ours: n, theirs: all, required: theirs_required.min(all) }];
    }
    let mut out: Vec<Mismatch> = ours
        .params
        .iter()
        .zip(&theirs.params)
        .enumerate()
        .filter(|(_, (o, t))| !(t.accepts(o) || **o == TypeSchema::Any))
        .map(|(index, (o, t))| Mismatch::Param { index, ours: o.clone(), theirs: t.clone() })
        .collect();
    if !(ours.ret.accepts(&theirs.ret) || theirs.ret == TypeSchema::Any) {
        out.push(Mismatch::Return { ours: ours.ret.clone(), theirs: theirs.ret.clone() });
    }
    out
}
