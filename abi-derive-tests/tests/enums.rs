//! `#[derive(AbiEnum)]`: a fieldless enum crosses as the names of its variants, in every
//! position (parameter, result, default, `Option`, `Vec`, map key and value, struct field),
//! through the real exported symbols; its names are published in the metadata.

use std::collections::HashMap;

use abi_core::schema::TypeSchema;
use abi_core::{AbiEnum, Any, AnyView, Array, RawAny};
use abi_derive_tests::call_export as call;

/// How pixels between samples are computed.
#[derive(abi_core::AbiEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[abi(rename_all = "lowercase")]
pub enum Interp {
    Nearest,
    Bilinear,
    #[abi(rename = "cubic")]
    Bicubic,
}

/// Names longer than a small string's seven bytes, as serde's kebab-case spells them.
#[derive(abi_core::AbiEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[abi(rename_all = "kebab-case")]
pub enum Border {
    ClampToEdge,
    MirroredRepeat,
}

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Sampler {
    pub interp: Interp,
    pub border: Option<Border>,
}

#[abi_core::export_fn]
pub fn enum_echo(mode: Interp) -> Interp {
    mode
}

#[abi_core::export_fn]
pub fn enum_next(border: Border) -> Border {
    match border {
        Border::ClampToEdge => Border::MirroredRepeat,
        Border::MirroredRepeat => Border::ClampToEdge,
    }
}

#[abi_core::export_fn]
pub fn enum_defaults(
    scale: i64,
    #[abi(default = "nearest")] mode: Interp,
    #[abi(default = Border::MirroredRepeat)] border: Border,
    #[abi(default = "cubic")] fallback: Option<Interp>,
) -> String {
    format!("{scale} {} {} {:?}", mode.name(), border.name(), fallback.map(|f| f.name()))
}

#[abi_core::export_fn]
pub fn enum_containers(
    modes: Vec<Interp>,
    picked: Option<Interp>,
    weights: HashMap<Interp, Border>,
) -> (Vec<Interp>, Option<Border>) {
    let border = picked.and_then(|p| weights.get(&p).copied());
    (modes.into_iter().rev().collect(), border)
}

#[abi_core::export_fn]
pub fn enum_sampler(s: Sampler) -> Sampler {
    Sampler { interp: Interp::Bicubic, border: s.border.or(Some(Border::ClampToEdge)) }
}

/// An op whose scalar is a fieldless enum: a string to torch schemas and JAX attributes.
#[abi_core::export_fn(op)]
pub fn enum_scale(
    x: abi_core::HostTensor<'_, f64, 1>,
    mode: Interp,
    #[abi(out = x)] mut y: abi_core::HostTensorMut<'_, f64, 1>,
) -> abi_core::Result<()> {
    let k = match mode {
        Interp::Nearest => 1.0,
        Interp::Bilinear => 2.0,
        Interp::Bicubic => 3.0,
    };
    for (o, i) in y.as_mut_slice().iter_mut().zip(x.as_slice()) {
        *o = k * i;
    }
    Ok(())
}

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

fn text(a: &Any) -> String {
    a.to::<String>().unwrap()
}

#[test]
fn a_variant_crosses_as_its_name_both_ways() {
    for (name, variant) in [("nearest", Interp::Nearest), ("bilinear", Interp::Bilinear), ("cubic", Interp::Bicubic)] {
        let out = call("enum_echo", &[v(name)]).unwrap();
        assert_eq!(text(&out), name);
        assert_eq!(out.to::<Interp>().unwrap(), variant);
        assert_eq!(variant.name(), name);
        assert_eq!(Interp::from_name(name.as_bytes()), Some(variant));
    }
    // Long names: a Str object in, a static Str object out, whatever the string form.
    let out = call("enum_next", &[v("clamp-to-edge".to_owned())]).unwrap();
    assert_eq!(text(&out), "mirrored-repeat");
    let c = c"mirrored-repeat";
    // SAFETY: a C string that outlives the call.
    let raw =
        unsafe { Any::from_raw(RawAny::from_ptr(abi_core::ffi::type_index::RAW_STR, c.as_ptr().cast_mut().cast())) };
    assert_eq!(text(&call("enum_next", &[raw]).unwrap()), "clamp-to-edge");
}

#[test]
fn an_unknown_name_is_a_value_error_naming_the_function_the_argument_and_the_names() {
    let e = call("enum_echo", &[v("Bilinear")]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    let m = e.message();
    assert!(m.contains("enum_echo") && m.contains("mode"), "{m}");
    assert!(m.contains(r#""Bilinear" is not a name of Interp; it takes "nearest", "bilinear", "cubic""#), "{m}");
    let e = call("enum_echo", &[v(3i64)]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert!(e.message().contains("expected Interp, got int"), "{}", e.message());
}

#[test]
fn defaults_name_variants_by_string_or_by_path() {
    assert_eq!(text(&call("enum_defaults", &[v(2i64)]).unwrap()), "2 nearest mirrored-repeat Some(\"cubic\")");
    let out = call("enum_defaults", &[v(1i64), v("bilinear"), v("clamp-to-edge"), Any::NONE]).unwrap();
    assert_eq!(text(&out), "1 bilinear clamp-to-edge None");
    let meta = abi_core::find_export("enum_defaults").unwrap().metadata_json();
    assert!(meta.contains(r#""mode":"nearest""#) && meta.contains(r#""border":"mirrored-repeat""#), "{meta}");
    assert!(meta.contains(r#""fallback":"cubic""#), "{meta}");
}

#[test]
fn lists_options_maps_and_struct_fields_hold_names() {
    let modes = Any::from(Array::new(vec![v(Interp::Nearest), v("cubic")]));
    let weights: HashMap<Interp, Border> = [(Interp::Bicubic, Border::ClampToEdge)].into();
    let out = call("enum_containers", &[modes, v("cubic"), v(weights)]).unwrap();
    let (modes, border) = out.to::<(Vec<Interp>, Option<Border>)>().unwrap();
    assert_eq!((modes, border), (vec![Interp::Bicubic, Interp::Nearest], Some(Border::ClampToEdge)));
    let items = out.to::<(Vec<String>, Option<String>)>().unwrap();
    assert_eq!(items, (vec!["cubic".to_owned(), "nearest".to_owned()], Some("clamp-to-edge".to_owned())));

    let s = Sampler { interp: Interp::Nearest, border: None };
    let out = call("enum_sampler", &[v(s)]).unwrap();
    assert_eq!(out.to::<Sampler>().unwrap(), Sampler { interp: Interp::Bicubic, border: Some(Border::ClampToEdge) });
    let bad = Any::from(Array::new(vec![v("linear"), Any::NONE]));
    let e = call("enum_sampler", &[bad]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    assert!(e.message().contains("Sampler.interp") && e.message().contains(r#""linear" is not a name of Interp"#));
}

#[test]
fn the_metadata_publishes_the_enum_as_a_string_with_its_names() {
    let meta = abi_core::find_export("enum_containers").unwrap().metadata_json();
    let parsed = abi_core::Metadata::parse(meta).unwrap();
    let params = parsed.params();
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let interp = TypeSchema::Enum {
        name: "Interp".into(),
        names: strings(&["nearest", "bilinear", "cubic"]),
        variants: strings(&["Nearest", "Bilinear", "Bicubic"]),
    };
    assert_eq!(params[0].1, TypeSchema::Array(Box::new(interp.clone())));
    assert_eq!(params[2].1.python(), "dict[Interp, Border]");
    // tvm-ffi reads the string it crosses as (and skips the keys it does not know).
    let schema = serde_json::from_str::<serde_json::Value>(meta).unwrap()["type_schema"].as_str().unwrap().to_owned();
    let text = r#"{"type":"ffi.String","abi.enum":"Interp","abi.names":["nearest","bilinear","cubic"],"abi.variants":["Nearest","Bilinear","Bicubic"]}"#;
    assert!(schema.contains(text), "{schema}");
    assert_eq!(TypeSchema::parse(text).unwrap(), interp);
    assert_eq!(interp.to_json(), text);
    // A string takes every name; an enum takes the names it lists.
    // Published without variants (another writer): the names stand for them.
    let wider = TypeSchema::parse(
        r#"{"type":"ffi.String","abi.enum":"Interp2","abi.names":["cubic","nearest","bilinear","area"]}"#,
    )
    .unwrap();
    assert!(matches!(&wider, TypeSchema::Enum { variants, .. } if variants[3] == "area"));
    assert!(TypeSchema::Str.accepts(&interp) && !interp.accepts(&TypeSchema::Str));
    assert!(wider.accepts(&interp) && !interp.accepts(&wider));
    let repeated = r#"{"type":"ffi.String","abi.enum":"E","abi.names":["a","a"]}"#;
    assert!(TypeSchema::parse(repeated).is_err());
}

#[test]
fn a_view_of_a_long_name_reads_the_static_object() {
    let any = v(Border::MirroredRepeat);
    let view: AnyView<'_> = any.view();
    assert_eq!(view.to::<String>().unwrap(), "mirrored-repeat");
    // Many references to the one static object, released again.
    let many: Vec<Any> = (0..1000).map(|_| v(Border::ClampToEdge)).collect();
    assert!(many.iter().all(|a| text(a) == "clamp-to-edge"));
}

#[test]
fn an_op_takes_an_enum_scalar_by_name() {
    let x = abi_core::Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
    let y = abi_core::Tensor::from_vec(vec![0.0f64, 0.0], &[2]).unwrap();
    call("enum_scale", &[v(x), v("cubic"), v(y.clone())]).unwrap();
    assert_eq!(y.view().as_slice::<f64>().unwrap(), [3.0, 6.0]);
    let e = call("enum_scale", &[v(y.clone()), v("quintic"), v(y)]).unwrap_err();
    assert_eq!(e.kind(), "ValueError");
    let meta = abi_core::Metadata::parse(abi_core::find_export("enum_scale").unwrap().metadata_json()).unwrap();
    assert_eq!(meta.op.unwrap().scalars, ["mode"]);
}
