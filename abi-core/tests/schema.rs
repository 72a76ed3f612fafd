//! The compatibility relation of `abi_core::schema` (docs/ABI.md section 11), case by case,
//! and the binding check built on it.

use abi_core::schema::{check_binding, FnType, Mismatch, TypeSchema};

fn t(text: &str) -> TypeSchema {
    TypeSchema::parse(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const INT: &str = r#"{"type":"int"}"#;
const FLOAT: &str = r#"{"type":"float"}"#;
const STR: &str = r#"{"type":"ffi.String"}"#;
const ANY: &str = r#"{"type":"Any"}"#;
const NONE: &str = r#"{"type":"None"}"#;
const OPT_INT: &str = r#"{"type":"Optional","args":[{"type":"int"}]}"#;
const FUNC: &str = r#"{"type":"ffi.Function"}"#;
// Callable[[int], int], in the two spellings.
const INT_TO_INT: &str = r#"{"type":"ffi.Function","args":[{"type":"int"},{"type":"int"}]}"#;
const INT_TO_INT_NAMED: &str =
    r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"int"}]}}"#;
// Callable[[Optional[int]], int] and Callable[[int], Optional[int]].
const OPT_TO_INT: &str =
    r#"{"type":"ffi.Function","args":[{"type":"int"},{"type":"Optional","args":[{"type":"int"}]}]}"#;
const INT_TO_OPT: &str =
    r#"{"type":"ffi.Function","args":[{"type":"Optional","args":[{"type":"int"}]},{"type":"int"}]}"#;

const TENSOR: &str = r#"{"type":"ffi.Tensor"}"#;
const F32_2: &str = r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2}"#;
const F64_2: &str = r#"{"type":"ffi.Tensor","dtype":"float64","ndim":2}"#;
const F32_2_CAST: &str = r#"{"type":"ffi.Tensor","dtype":"float32","ndim":2,"cast":"same_kind"}"#;
const I64_2: &str = r#"{"type":"ffi.Tensor","dtype":"int64","ndim":2}"#;

#[test]
fn the_relation_case_by_case() {
    let cases: &[(&str, &str, bool, &str)] = &[
        (ANY, INT, true, "Any accepts everything"),
        (ANY, FUNC, true, "Any accepts everything"),
        (INT, ANY, false, "only Any accepts Any"),
        (INT, INT, true, "a type accepts itself"),
        (INT, FLOAT, false, "widths aside, int and float differ"),
        (OPT_INT, INT, true, "Optional[T] accepts T"),
        (OPT_INT, NONE, true, "Optional[T] accepts None"),
        (INT, OPT_INT, false, "T does not accept Optional[T]"),
        (FUNC, INT_TO_INT, true, "an untyped Function accepts a typed callback"),
        (INT_TO_INT, FUNC, false, "a typed callback needs a typed function"),
        (INT_TO_INT, INT_TO_INT_NAMED, true, "the two spellings are one type"),
        (INT_TO_INT, OPT_TO_INT, true, "a callback taking more (Optional[int]) fits where int is passed"),
        (OPT_TO_INT, INT_TO_INT, false, "a callback taking only int cannot receive None"),
        (INT_TO_OPT, INT_TO_INT, true, "results are covariant"),
        (INT_TO_INT, INT_TO_OPT, false, "results are covariant"),
        (
            r#"{"type":"ffi.Array","args":[{"type":"Optional","args":[{"type":"int"}]}]}"#,
            r#"{"type":"ffi.Array","args":[{"type":"int"}]}"#,
            true,
            "arrays compare elements",
        ),
        (
            r#"{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]}"#,
            r#"{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"float"}]}"#,
            false,
            "maps compare values",
        ),
        (
            r#"{"type":"Tuple","args":[{"type":"int"},{"type":"int"}]}"#,
            r#"{"type":"Tuple","args":[{"type":"int"}]}"#,
            false,
            "tuples (structs) compare arity",
        ),
        (r#"{"type":"ffi.Object"}"#, r#"{"type":"mylib.Counter"}"#, true, "Object accepts any object class"),
        (r#"{"type":"mylib.Counter"}"#, r#"{"type":"mylib.Other"}"#, false, "classes compare keys"),
        (
            r#"{"type":"Variant","args":[{"type":"int"},{"type":"ffi.String"}]}"#,
            STR,
            true,
            "a variant accepts each member",
        ),
        (STR, r#"{"type":"std::string"}"#, true, "C++ aliases read as the same type"),
        (F32_2, F32_2, true, "a typed tensor accepts its own dtype and rank"),
        (F32_2, F64_2, false, "typed tensors compare dtypes"),
        (F32_2, r#"{"type":"ffi.Tensor","dtype":"float32","ndim":1}"#, false, "typed tensors compare ranks"),
        (F32_2, TENSOR, true, "a side naming no dtype (C++ metadata, TensorView) is not refused at binding"),
        (TENSOR, F64_2, true, "an untyped tensor accepts every tensor"),
        (F32_2_CAST, F64_2, true, "a converting tensor (HostTensorAs) accepts what casts same_kind"),
        (F32_2_CAST, I64_2, true, "integers cast same_kind to floats"),
        (r#"{"type":"ffi.Tensor","dtype":"int32","cast":"same_kind"}"#, F32_2, false, "floats do not to integers"),
        (F32_2_CAST, r#"{"type":"ffi.Tensor","dtype":"float64","ndim":1}"#, false, "ranks still compare"),
        (F32_2, F32_2_CAST, true, "the source's own casting does not matter"),
    ];
    for (target, source, expected, why) in cases {
        assert_eq!(t(target).accepts(&t(source)), *expected, "{why}: {target} accepts {source}");
    }
}

fn f(text: &str) -> FnType {
    FnType::parse(text).unwrap()
}

#[test]
fn binding_reports_each_mismatch() {
    // apply_twice(f: Callable[[int], int], x: int) -> int against C++'s untyped Function.
    let ours =
        f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{INT}],"params":[{INT_TO_INT},{INT}]}}}}"#));
    let theirs = f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{INT}],"params":[{FUNC},{INT}]}}}}"#));
    assert_eq!(check_binding(&ours, &theirs, theirs.params.len()), vec![]);
    // Declared untyped where the callee wants a typed callback: refused.
    assert_eq!(
        check_binding(&theirs, &ours, ours.params.len()),
        vec![Mismatch::Param { index: 0, ours: t(FUNC), theirs: t(INT_TO_INT) }]
    );
    let wrong =
        f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{STR}],"params":[{INT_TO_INT},{FLOAT}]}}}}"#));
    assert_eq!(
        check_binding(&wrong, &theirs, theirs.params.len()),
        vec![
            Mismatch::Param { index: 1, ours: t(FLOAT), theirs: t(INT) },
            Mismatch::Return { ours: t(STR), theirs: t(INT) }
        ]
    );
    let short = f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{INT}],"params":[{INT}]}}}}"#));
    assert_eq!(
        check_binding(&short, &theirs, theirs.params.len()),
        vec![Mismatch::Arity { ours: 1, theirs: 2, required: 2 }]
    );
    // A declaration may leave out trailing parameters the callee gives defaults, and only those.
    let prefix = f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{INT}],"params":[{FUNC}]}}}}"#));
    assert_eq!(check_binding(&prefix, &theirs, 1), vec![]);
    assert_eq!(check_binding(&prefix, &theirs, 2), vec![Mismatch::Arity { ours: 1, theirs: 2, required: 2 }]);
    let long = f(&format!(
        r#"{{"type":"ffi.Function","named_args":{{"return":[{INT}],"params":[{INT_TO_INT},{INT},{INT}]}}}}"#
    ));
    assert_eq!(check_binding(&long, &theirs, 1), vec![Mismatch::Arity { ours: 3, theirs: 2, required: 1 }]);
    // Any on the declared side of a parameter, or the callee's side of the result, defers
    // the check to call time.
    let dynamic = f(&format!(r#"{{"type":"ffi.Function","named_args":{{"return":[{ANY}],"params":[{ANY},{INT}]}}}}"#));
    assert_eq!(check_binding(&dynamic, &theirs, theirs.params.len()), vec![]);
    assert_eq!(check_binding(&theirs, &dynamic, dynamic.params.len()), vec![]);
}

#[test]
fn schemas_print_back_in_their_form() {
    for text in [INT_TO_INT, INT_TO_INT_NAMED, OPT_INT, r#"{"type":"mylib.Box","args":[{"type":"int"}]}"#] {
        assert_eq!(t(text).to_json(), text);
    }
    assert_eq!(t(INT_TO_INT).python(), "Callable[[int], int]");
}
