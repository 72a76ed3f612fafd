//! User object types (`#[derive(Object)]`): the class description and registration
//! ([`class`]), the class records tools read from the file ([`class_record`]), the strong
//! and weak handles ([`obj`], [`weak_obj`]), objects of any type read through reflection
//! ([`reflected`]), and the type table of the embedded runtime ([`type_registry`]).

pub mod class;
pub mod class_record;
pub mod obj;
pub mod reflected;
pub mod type_registry;
pub mod weak_obj;
