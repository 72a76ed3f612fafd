//! The compile-time check that `backward = path` names a backward of the op
//! ([`check_backward`]), whose errors name the parameter at fault and what it must be.

use super::op::{param_ty, same_tensor_type, same_type, OpOutput, OpRule};
use super::render::type_display;
use super::type_desc::str_eq;
use super::writer::Writer;
use super::{FnDesc, TypeDesc};

/// Checks, at compile time, that `bwd` is the backward of op `fwd`: `bwd`'s input tensors
/// are `fwd`'s inputs (same names, order and types) then one gradient per output (a tensor
/// of the output's dtype and rank), its scalars are `fwd`'s (same names, order and types,
/// standing where the order rule lets them), and its outputs are one per input of `fwd`, in
/// order, each `out = <that input>`. Panics (a compile error where it is asserted) naming
/// the parameter at fault.
pub const fn check_backward(fwd: &FnDesc, bwd: &FnDesc) {
    let Some(fwd_op) = fwd.op else {
        panic!("only an op has a backward");
    };
    let Some(bwd_op) = bwd.op else {
        Message::new().s("`").s(bwd.name).s("` is not an `#[export_fn(op)]`: a backward is an op").fail();
    };
    let (n_in, n_out) = (fwd_op.inputs.len(), fwd_op.outputs.len());
    if bwd_op.inputs.len() != n_in + n_out {
        head(bwd)
            .s(" takes the input tensors ")
            .names(bwd_op.inputs)
            .s("; it needs the forward's inputs (")
            .names(fwd_op.inputs)
            .s("), then one gradient per forward output (")
            .outputs(fwd_op.outputs, false)
            .s(")")
            .fail();
    }
    let mut i = 0;
    while i < n_in {
        let (name, got) = (fwd_op.inputs[i], bwd_op.inputs[i]);
        let want = param_ty(fwd, name);
        if !str_eq(got, name) || !same_type(param_ty(bwd, got), want) {
            head(bwd).s("'s input tensor `")
                .s(got)
                .s("` (")
                .ty(param_ty(bwd, got))
                .s(") stands where the forward's input `")
                .s(name)
                .s("` (")
                .ty(want)
                .s(") belongs: its input tensors start with the forward's inputs, with the same names, order, dtypes and ranks")
                .fail();
        }
        i += 1;
    }
    let mut o = 0;
    while o < n_out {
        let (grad, out) = (bwd_op.inputs[n_in + o], fwd_op.outputs[o].name);
        if !same_tensor_type(param_ty(bwd, grad), param_ty(fwd, out)) {
            head(bwd)
                .s("'s gradient `")
                .s(grad)
                .s("` is ")
                .ty(param_ty(bwd, grad))
                .s(", and the forward's output `")
                .s(out)
                .s("` is ")
                .ty(param_ty(fwd, out))
                .s(": a gradient has its output's dtype and rank")
                .fail();
        }
        o += 1;
    }
    if bwd_op.scalars.len() != fwd_op.scalars.len() {
        scalars(bwd, bwd_op.scalars, fwd_op.scalars).fail();
    }
    let mut k = 0;
    while k < fwd_op.scalars.len() {
        let name = fwd_op.scalars[k];
        if !str_eq(bwd_op.scalars[k], name) || !same_type(param_ty(bwd, name), param_ty(fwd, name)) {
            let got = bwd_op.scalars[k];
            let m = scalars(bwd, bwd_op.scalars, fwd_op.scalars).s(": its `").s(got).s("` is ").ty(param_ty(bwd, got));
            m.s(", the forward's `").s(name).s("` is ").ty(param_ty(fwd, name)).fail();
        }
        k += 1;
    }
    let mut j = 0;
    while j < n_in {
        let ok = j < bwd_op.outputs.len()
            && match bwd_op.outputs[j].rule {
                OpRule::Like(like) => str_eq(like, fwd_op.inputs[j]),
                _ => false,
            };
        if !ok || bwd_op.outputs.len() != n_in {
            head(bwd)
                .s(" has the outputs ")
                .outputs(bwd_op.outputs, true)
                .s("; it needs one per forward input tensor, in order, each the gradient of that input: ")
                .outs_like(fwd_op.inputs)
                .fail();
        }
        j += 1;
    }
}

/// `the backward `<name>``, how every message starts.
const fn head(bwd: &FnDesc) -> Message {
    Message::new().s("the backward `").s(bwd.name).s("`")
}

/// The backward's scalars against the forward's.
const fn scalars(bwd: &FnDesc, got: &[&str], want: &[&str]) -> Message {
    let m = head(bwd).s(" takes the scalars ").names(got).s("; it needs the forward's (");
    m.names(want).s("), with the same names, order and types")
}

/// A compile-time error message put together from fixed text, names and types: const
/// evaluation can panic with a whole `&str` only. Made only on the way to an error.
struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    /// Bytes kept; the rest is cut.
    const CAPACITY: usize = 1024;

    const fn new() -> Message {
        Message { buf: [0; Message::CAPACITY], len: 0 }
    }

    /// Appends fixed text or a name.
    const fn s(mut self, text: &str) -> Message {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < Message::CAPACITY {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends `` `a`, `b` ``, or `none`.
    const fn names(mut self, names: &[&str]) -> Message {
        if names.is_empty() {
            return self.s("none");
        }
        let mut i = 0;
        while i < names.len() {
            if i > 0 {
                self = self.s(", ");
            }
            self = self.s("`").s(names[i]).s("`");
            i += 1;
        }
        self
    }

    /// Appends the outputs' names, each with its rule when `rules` (`` `dx` (out = x) ``).
    const fn outputs(mut self, outputs: &[OpOutput], rules: bool) -> Message {
        if outputs.is_empty() {
            return self.s("none");
        }
        let mut i = 0;
        while i < outputs.len() {
            if i > 0 {
                self = self.s(", ");
            }
            self = self.s("`").s(outputs[i].name).s("`");
            if rules {
                self = match outputs[i].rule {
                    OpRule::Like(like) => self.s(" (out = ").s(like).s(")"),
                    OpRule::Shape(_) => self.s(" (out = [...])"),
                    OpRule::InOut => self.s(" (inout)"),
                };
            }
            i += 1;
        }
        self
    }

    /// Appends `` `#[abi(out = a)]`, `#[abi(out = b)]` ``.
    const fn outs_like(mut self, inputs: &[&str]) -> Message {
        let mut i = 0;
        while i < inputs.len() {
            if i > 0 {
                self = self.s(", ");
            }
            self = self.s("`#[abi(out = ").s(inputs[i]).s(")]`");
            i += 1;
        }
        self
    }

    /// Appends `ty` as error messages show it (`Tensor[f64, 1]`, `float`).
    const fn ty(mut self, ty: &TypeDesc) -> Message {
        let (_, rest) = self.buf.split_at_mut(self.len);
        let room = rest.len();
        let mut w = Writer::new(rest);
        type_display(&mut w, ty);
        let written = w.len();
        self.len += if written < room { written } else { room };
        self
    }

    /// Stops compilation with the message (cut where UTF-8 allows, if it was cut).
    const fn fail(&self) -> ! {
        let (text, _) = self.buf.split_at(self.len);
        let text = match core::str::from_utf8(text) {
            Ok(text) => text,
            Err(e) => match core::str::from_utf8(text.split_at(e.valid_up_to()).0) {
                Ok(text) => text,
                Err(_) => "the backward does not fit its op",
            },
        };
        panic!("{}", text)
    }
}
