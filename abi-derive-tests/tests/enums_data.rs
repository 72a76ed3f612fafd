//! `#[derive(AbiEnum)]` on an enum whose variants hold fields: a value crosses as a tagged
//! tuple (the variant's name, then its fields), in every position, through the real
//! exported symbols; its variants and their fields are published in the metadata.

use std::collections::HashMap;

use abi_core::schema::{TaggedVariant, TypeSchema};
use abi_core::{Any, Array};
use abi_derive_tests::call_export as call;

/// A plane figure.
#[derive(abi_core::AbiEnum, Debug, Clone, PartialEq)]
#[abi(rename_all = "snake_case")]
pub enum Shape {
    /// A circle of radius `r`.
    Circle {
        r: f64,
    },
    Rect {
        w: f64,
        #[abi(rename = "height")]
        h: f64,
    },
    Polygon(Vec<(f64, f64)>, String),
    Empty,
}

#[derive(abi_core::AbiStruct, Debug, Clone, PartialEq)]
pub struct Layer {
    pub name: String,
    pub shape: Shape,
}

#[abi_core::export_fn]
pub fn shape_area(s: Shape) -> f64 {
    match s {
        Shape::Circle { r } => 3.0 * r * r,
        Shape::Rect { w, h } => w * h,
        Shape::Polygon(points, _) => points.len() as f64,
        Shape::Empty => 0.0,
    }
}

#[abi_core::export_fn]
pub fn shape_grow(s: Shape, by: f64) -> Shape {
    match s {
        Shape::Circle { r } => Shape::Circle { r: r + by },
        Shape::Rect { w, h } => Shape::Rect { w: w + by, h: h + by },
        Shape::Polygon(points, label) => Shape::Polygon(points, format!("{label}+{by}")),
        Shape::Empty => Shape::Empty,
    }
}

#[abi_core::export_fn]
pub fn shape_containers(
    shapes: Vec<Shape>,
    picked: Option<Shape>,
    named: HashMap<String, Shape>,
    layer: Layer,
) -> (Vec<Shape>, Option<Shape>, Layer) {
    let found = picked.and_then(|_| named.get("a").cloned());
    (shapes.into_iter().rev().collect(), found, Layer { name: layer.name.to_uppercase(), shape: layer.shape })
}

fn v<T: abi_core::IntoAny>(x: T) -> Any {
    Any::from_value(x).unwrap()
}

fn tuple(items: Vec<Any>) -> Any {
    Any::from(Array::new(items))
}

#[test]
fn a_value_crosses_as_its_variants_name_then_its_fields() {
    let circle = call("shape_grow", &[tuple(vec![v("circle"), v(1.5)]), v(0.5)]).unwrap();
    let items = circle.to::<(String, f64)>().unwrap();
    assert_eq!(items, ("circle".to_owned(), 2.0));
    assert_eq!(circle.to::<Shape>().unwrap(), Shape::Circle { r: 2.0 });
    let rect = call("shape_grow", &[v(Shape::Rect { w: 1.0, h: 2.0 }), v(1.0)]).unwrap();
    assert_eq!(rect.to::<(String, f64, f64)>().unwrap(), ("rect".to_owned(), 2.0, 3.0));
    let poly = Shape::Polygon(vec![(0.0, 0.0), (1.0, 0.0)], "p".into());
    let out = call("shape_grow", &[v(poly), v(2.0)]).unwrap();
    assert_eq!(out.to::<Shape>().unwrap(), Shape::Polygon(vec![(0.0, 0.0), (1.0, 0.0)], "p+2".into()));
    let empty = call("shape_grow", &[tuple(vec![v("empty")]), v(2.0)]).unwrap();
    assert_eq!(empty.to::<(String,)>().unwrap(), ("empty".to_owned(),));
    assert_eq!(call("shape_area", &[v(Shape::Rect { w: 2.0, h: 3.0 })]).unwrap().to::<f64>().unwrap(), 6.0);
}

#[test]
fn bad_values_are_errors_naming_the_function_the_argument_and_what_was_wrong() {
    let message = |args: &[Any]| {
        let e = call("shape_area", args).unwrap_err();
        (e.kind().to_owned(), e.message().to_owned())
    };
    let (kind, m) = message(&[tuple(vec![v("square"), v(1.0)])]);
    assert_eq!(kind, "ValueError");
    assert!(m.contains("shape_area") && m.contains('s'), "{m}");
    assert!(m.contains(r#""square" is not a name of Shape; it takes "circle", "rect", "polygon", "empty""#), "{m}");
    let (kind, m) = message(&[tuple(vec![v("circle")])]);
    assert_eq!(kind, "TypeError");
    assert!(m.contains("expected Shape.Circle: its name then 1 field (r), got a tuple of 1 item"), "{m}");
    let (_, m) = message(&[tuple(vec![v("empty"), v(1.0), v(2.0)])]);
    assert!(m.contains("expected Shape.Empty: its name then no fields, got a tuple of 3 items"), "{m}");
    let (kind, m) = message(&[tuple(vec![v("circle"), v("wide")])]);
    assert_eq!(kind, "TypeError");
    assert!(m.contains("Shape.Circle.r: expected float, got str"), "{m}");
    let (kind, m) = message(&[tuple(vec![v(1.0)])]);
    assert_eq!(kind, "TypeError");
    assert!(
        m.contains(
            r#"expected Shape: a tuple of a variant's name ("circle", "rect", "polygon", "empty") then its fields, got a tuple starting with float"#
        ),
        "{m}"
    );
    let (kind, m) = message(&[tuple(Vec::new())]);
    assert_eq!(kind, "TypeError", "{m}");
    assert!(m.ends_with("then its fields, got an empty tuple"), "{m}");
    let (kind, m) = message(&[v("circle")]);
    assert_eq!(kind, "TypeError");
    assert!(m.contains("expected Shape, got str"), "{m}");
}

#[test]
fn lists_options_maps_and_struct_fields_hold_tagged_values() {
    let shapes = vec![Shape::Empty, Shape::Circle { r: 1.0 }];
    let named: HashMap<String, Shape> = [("a".to_owned(), Shape::Rect { w: 1.0, h: 1.0 })].into();
    let layer = Layer { name: "top".into(), shape: Shape::Circle { r: 3.0 } };
    let out = call("shape_containers", &[v(shapes), v(Shape::Empty), v(named), v(layer)]).unwrap();
    let (shapes, found, layer) = out.to::<(Vec<Shape>, Option<Shape>, Layer)>().unwrap();
    assert_eq!(shapes, vec![Shape::Circle { r: 1.0 }, Shape::Empty]);
    assert_eq!(found, Some(Shape::Rect { w: 1.0, h: 1.0 }));
    assert_eq!(layer, Layer { name: "TOP".into(), shape: Shape::Circle { r: 3.0 } });
}

#[test]
fn the_metadata_publishes_each_variant_with_its_fields() {
    let meta = abi_core::find_export("shape_area").unwrap().metadata_json();
    let parsed = abi_core::Metadata::parse(meta).unwrap();
    let field = |n: &str, t: TypeSchema| (n.to_owned(), t);
    // Widths are published for parameters' own numbers (iree.abi), not for fields.
    let float = TypeSchema::Float(None);
    let variant = |name: &str, ident: &str, fields: Vec<(String, TypeSchema)>| TaggedVariant {
        name: name.into(),
        ident: ident.into(),
        fields,
    };
    let points = TypeSchema::Array(Box::new(TypeSchema::Tuple(vec![float.clone(), float.clone()])));
    let shape = TypeSchema::Tagged {
        name: "Shape".into(),
        variants: vec![
            variant("circle", "Circle", vec![field("r", float.clone())]),
            variant("rect", "Rect", vec![field("w", float.clone()), field("height", float.clone())]),
            variant("polygon", "Polygon", vec![field("0", points), field("1", TypeSchema::Str)]),
            variant("empty", "Empty", Vec::new()),
        ],
    };
    assert_eq!(parsed.params()[0].1, shape);
    assert!(
        matches!(&shape, TypeSchema::Tagged { variants, .. } if variants[2].tuple_like() && !variants[0].tuple_like())
    );
    // tvm-ffi reads the Variant of tuples it crosses as (and skips the keys it does not know).
    let schema = serde_json::from_str::<serde_json::Value>(meta).unwrap()["type_schema"].as_str().unwrap().to_owned();
    let text = r#"{"type":"Variant","args":[{"type":"Tuple","args":[{"type":"ffi.String"},{"type":"float"}]},"#;
    assert!(schema.contains(text), "{schema}");
    assert!(schema.contains(r#""abi.enum":"Shape","abi.names":["circle","rect","polygon","empty"],"abi.variants":["Circle","Rect","Polygon","Empty"],"abi.variant_fields":[["r"],["w","height"],["0","1"],[]]"#), "{schema}");
    // The model writes what the macro wrote, and reads it back.
    let written = shape.to_json();
    assert!(schema.contains(&written), "{written}\n{schema}");
    assert_eq!(TypeSchema::parse(&written).unwrap(), shape);
    assert_eq!(shape.python(), "Shape");
    assert_eq!(
        shape.python_layout(),
        r#"Union[tuple[Literal["circle"], float], tuple[Literal["rect"], float, float], tuple[Literal["polygon"], list[tuple[float, float]], str], tuple[Literal["empty"]]]"#
    );
}

#[test]
fn an_enum_with_data_accepts_the_variants_it_has_field_by_field() {
    let parse = |names: &[(&str, &[&str])]| {
        let variants = names
            .iter()
            .map(|(n, fields)| TaggedVariant {
                name: (*n).into(),
                ident: (*n).into(),
                fields: fields.iter().map(|f| ((*f).to_owned(), TypeSchema::Int(None))).collect(),
            })
            .collect();
        TypeSchema::Tagged { name: "E".into(), variants }
    };
    let small = parse(&[("a", &["x"]), ("b", &[])]);
    let wide = parse(&[("a", &["x"]), ("b", &[]), ("c", &["y", "z"])]);
    assert!(wide.accepts(&small) && !small.accepts(&wide));
    let more_fields = parse(&[("a", &["x", "y"]), ("b", &[])]);
    assert!(!more_fields.accepts(&small) && !small.accepts(&more_fields));
    assert!(!small.accepts(&TypeSchema::Tuple(vec![TypeSchema::Str])));
    let malformed = r#"{"type":"Variant","args":[{"type":"int"}],"abi.enum":"E","abi.names":["a"],"abi.variants":["A"],"abi.variant_fields":[[]]}"#;
    assert!(TypeSchema::parse(malformed).is_err());
}

/// interop-lib's `Figure` as an older build declared it: no `Polygon`.
mod older {
    #[derive(abi_core::AbiEnum, Debug, Clone, PartialEq)]
    pub enum Figure {
        Circle { r: f64 },
        Rect { w: f64, h: f64 },
        Empty,
    }

    #[abi_core::import(OlderFigures)]
    extern "C" {
        pub fn scale_figure(s: Figure, k: f64) -> Figure;
        pub fn figure_area(s: Figure) -> f64;
    }
}

#[test]
fn binding_an_older_declaration_names_the_variant_the_callee_added() {
    let lib = abi_core::Library::open(abi_derive_tests::fixture_library("abi-interop-lib", "abi_interop_lib")).unwrap();
    let e = older::OlderFigures::bind(&lib).unwrap_err();
    let m = e.message();
    // The parameters take what the declaration passes; the result may be a variant it lacks.
    assert!(m.contains(r#"the result differs in the callee: enum Figure: variant "Polygon" added"#), "{m}");
    assert!(!m.contains("figure_area") && !m.contains("Literal"), "{m}");
}
