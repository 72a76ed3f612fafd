// Shadows every prelude name generated code might use by accident: `Result`, `Ok`,
// `Some`, `Vec`, `String`, `Box`, `Into`... (included by each hygiene test).
#[allow(dead_code)]
mod shadows {
    pub type Result = ();
    pub struct Ok;
    pub struct Err;
    pub struct Some;
    pub struct None;
    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Box;
    pub trait Into {}
    pub trait From {}
    pub trait Default {}
}
#[allow(unused_imports)]
use shadows::*;
