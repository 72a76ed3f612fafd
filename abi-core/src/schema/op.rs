//! [`OpInfo`]: an op's description (`abi.op` in the metadata of an `#[export_fn(op)]`
//! export) read back: its inputs, scalars, outputs with their shape rules, in-place
//! parameters, backward, JAX entry point and device; printed back as the same JSON.

use serde_json::{Map, Value};

use super::SchemaError;
use crate::reflect::{OpDesc, OpDim, OpRule};

/// An op's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Input tensor parameters, in order.
    pub inputs: Vec<String>,
    /// Scalar parameters, in order.
    pub scalars: Vec<String>,
    /// Outputs and in-place parameters, in order.
    pub outputs: Vec<OpOutputInfo>,
    /// In-place parameters, in order.
    pub inout: Vec<String>,
    /// The backward op's exported name.
    pub backward: Option<String>,
    /// The exported name of the JAX-order entry point (ops with an in-place parameter).
    pub jax: Option<String>,
    /// `cpu` or `gpu`.
    pub device: String,
    /// The input tensors that take any strides (`StridedTensor`): `strided`, absent when
    /// none does. The others need compact row-major data.
    pub strided: Vec<String>,
}

/// One output or in-place parameter of an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpOutputInfo {
    /// The parameter name.
    pub name: String,
    /// How its shape is found.
    pub rule: ShapeRule,
}

/// An output's shape rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeRule {
    /// The shape of the named input tensor.
    Like(String),
    /// One dimension per item.
    Shape(Vec<ShapeDim>),
    /// In place: the tensor passed.
    InOut,
}

/// One dimension of a [`ShapeRule::Shape`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeDim {
    /// `a.0`: an axis of an input tensor.
    Axis(String, u32),
    /// `n`: the value of an integer scalar parameter.
    Scalar(String),
    /// A constant.
    Const(i64),
}

impl ShapeDim {
    /// As the user wrote it: `a.0`, `n`, `3`.
    pub fn text(&self) -> String {
        match self {
            ShapeDim::Axis(input, axis) => format!("{input}.{axis}"),
            ShapeDim::Scalar(name) => name.clone(),
            ShapeDim::Const(n) => n.to_string(),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            ShapeDim::Const(n) => Value::from(*n),
            other => Value::String(other.text()),
        }
    }
}

impl ShapeRule {
    /// As the user wrote it in `#[abi(...)]`: `out = x`, `out = [a.0, b.1]`, `inout`.
    pub fn text(&self) -> String {
        match self {
            ShapeRule::Like(input) => format!("out = {input}"),
            ShapeRule::Shape(dims) => {
                format!("out = [{}]", dims.iter().map(ShapeDim::text).collect::<Vec<_>>().join(", "))
            }
            ShapeRule::InOut => "inout".to_owned(),
        }
    }
}

impl From<&OpDesc> for OpInfo {
    fn from(op: &OpDesc) -> OpInfo {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let outputs: Vec<OpOutputInfo> = op
            .outputs
            .iter()
            .map(|o| OpOutputInfo {
                name: o.name.to_owned(),
                rule: match o.rule {
                    OpRule::Like(input) => ShapeRule::Like(input.to_owned()),
                    OpRule::InOut => ShapeRule::InOut,
                    OpRule::Shape(dims) => ShapeRule::Shape(
                        dims.iter()
                            .map(|d| match *d {
                                OpDim::Axis(input, axis) => ShapeDim::Axis(input.to_owned(), axis),
                                OpDim::Scalar(name) => ShapeDim::Scalar(name.to_owned()),
                                OpDim::Const(n) => ShapeDim::Const(n),
                            })
                            .collect(),
                    ),
                },
            })
            .collect();
        OpInfo {
            inputs: names(op.inputs),
            scalars: names(op.scalars),
            inout: outputs.iter().filter(|o| o.rule == ShapeRule::InOut).map(|o| o.name.clone()).collect(),
            outputs,
            backward: op.backward.map(str::to_owned),
            jax: op.jax.map(str::to_owned),
            device: op.device.as_str().to_owned(),
            strided: names(op.strided),
        }
    }
}

fn bad(what: impl std::fmt::Display) -> SchemaError {
    SchemaError::new(format!("metadata `{}`: {what}", abi_shared::OP_KEY))
}

fn names(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, SchemaError> {
    match map.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| bad(format!("`{key}` holds a non-string: {v}"))))
            .collect(),
        other => Err(bad(format!("`{key}` is not a list of names: {}", other.unwrap_or(&Value::Null)))),
    }
}

fn name_or_null(map: &Map<String, Value>, key: &str) -> Result<Option<String>, SchemaError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(format!("`{key}` is not a name or null: {other}"))),
    }
}

fn dim(v: &Value) -> Result<ShapeDim, SchemaError> {
    if let Some(n) = v.as_i64() {
        return Ok(ShapeDim::Const(n));
    }
    let text = v.as_str().ok_or_else(|| bad(format!("a shape item is not a name or an integer: {v}")))?;
    Ok(match text.split_once('.') {
        Some((input, axis)) => ShapeDim::Axis(
            input.to_owned(),
            axis.parse().map_err(|_| bad(format!("shape item `{text}`: the axis is not a number")))?,
        ),
        None => ShapeDim::Scalar(text.to_owned()),
    })
}

fn output(v: &Value) -> Result<OpOutputInfo, SchemaError> {
    let Value::Object(map) = v else { return Err(bad(format!("an output is not an object: {v}"))) };
    let name = map.get("name").and_then(Value::as_str).ok_or_else(|| bad(format!("an output has no name: {v}")))?;
    let rule = match (map.get("like"), map.get("shape"), map.get("inout")) {
        (Some(Value::String(input)), None, None) => ShapeRule::Like(input.clone()),
        (None, Some(Value::Array(dims)), None) => ShapeRule::Shape(dims.iter().map(dim).collect::<Result<_, _>>()?),
        (None, None, Some(Value::Bool(true))) => ShapeRule::InOut,
        _ => return Err(bad(format!("output `{name}` has no rule (`like`, `shape` or `inout`): {v}"))),
    };
    Ok(OpOutputInfo { name: name.to_owned(), rule })
}

impl OpInfo {
    /// Reads the `abi.op` object.
    pub fn from_value(value: &Value) -> Result<OpInfo, SchemaError> {
        let Value::Object(map) = value else { return Err(bad(format!("not an object: {value}"))) };
        let outputs = match map.get("outputs") {
            Some(Value::Array(items)) => items.iter().map(output).collect::<Result<Vec<_>, _>>()?,
            other => return Err(bad(format!("`outputs` is not a list: {}", other.unwrap_or(&Value::Null)))),
        };
        let device = map.get("device").and_then(Value::as_str).ok_or_else(|| bad("`device` is not a string"))?;
        Ok(OpInfo {
            inputs: names(map, "inputs")?,
            scalars: names(map, "scalars")?,
            outputs,
            inout: names(map, "inout")?,
            backward: name_or_null(map, "backward")?,
            jax: name_or_null(map, "jax")?,
            device: device.to_owned(),
            strided: if map.contains_key("strided") { names(map, "strided")? } else { Vec::new() },
        })
    }

    /// The JSON text, keys in the order this project writes them.
    pub fn to_json(&self) -> String {
        let list = |names: &[String]| Value::from(names.to_vec()).to_string();
        let or_null = |name: &Option<String>| name.clone().map_or(Value::Null, Value::String).to_string();
        let outputs: Vec<String> = self
            .outputs
            .iter()
            .map(|o| {
                let name = Value::String(o.name.clone());
                match &o.rule {
                    ShapeRule::Like(input) => format!("{{\"name\":{name},\"like\":{}}}", Value::String(input.clone())),
                    ShapeRule::Shape(dims) => {
                        let dims: Vec<Value> = dims.iter().map(ShapeDim::to_value).collect();
                        format!("{{\"name\":{name},\"shape\":{}}}", Value::from(dims))
                    }
                    ShapeRule::InOut => format!("{{\"name\":{name},\"inout\":true}}"),
                }
            })
            .collect();
        let strided = match self.strided.is_empty() {
            true => String::new(),
            false => format!(",\"strided\":{}", list(&self.strided)),
        };
        format!(
            "{{\"inputs\":{},\"scalars\":{},\"outputs\":[{}],\"inout\":{},\"backward\":{},\"jax\":{},\"device\":{}{strided}}}",
            list(&self.inputs),
            list(&self.scalars),
            outputs.join(","),
            list(&self.inout),
            or_null(&self.backward),
            or_null(&self.jax),
            Value::String(self.device.clone()),
        )
    }

    /// The rule of output or in-place parameter `name`.
    pub fn rule_of(&self, name: &str) -> Option<&ShapeRule> {
        self.outputs.iter().find(|o| o.name == name).map(|o| &o.rule)
    }
}
