//! Expansion snapshots: what each macro generates for representative inputs, pretty-printed
//! and compared with the approved files in `src/snapshots/` (cxx's expansion tests are the
//! precedent). A change to generated code shows up here as a reviewable diff; approve it
//! with `cargo insta review` or `INSTA_UPDATE=always cargo test -p abi-macros`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{ExportFn, ImportSet, MethodsBlock, ObjectDef, StructDef};
use crate::skeleton;

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("every expansion is a list of items");
    prettyplease::unparse(&file)
}

fn export(attr: TokenStream, item: TokenStream) -> String {
    pretty(skeleton::run::<ExportFn>((attr, item)))
}

fn derive(item: TokenStream) -> String {
    pretty(skeleton::run::<StructDef>(item))
}

fn import(attr: TokenStream, item: TokenStream) -> String {
    pretty(skeleton::run::<ImportSet>((attr, item)))
}

fn object(item: TokenStream) -> String {
    pretty(skeleton::run::<ObjectDef>(item))
}

fn methods(item: TokenStream) -> String {
    pretty(skeleton::run::<MethodsBlock>((quote!(), item)))
}

#[test]
fn object_with_read_only_writable_and_hidden_fields() {
    insta::assert_snapshot!(object(quote! {
        /// A named counter.
        #[abi(type_key = "mylib.Counter")]
        pub struct Counter {
            /// The counter's name.
            #[abi(get)]
            pub name: String,
            #[abi(get, set)]
            pub hits: AtomicI64,
            value: AtomicI64,
        }
    }));
}

#[test]
fn object_methods_instance_static_and_init() {
    insta::assert_snapshot!(methods(quote! {
        impl Counter {
            /// Makes a counter.
            #[abi(init)]
            pub fn new(name: String) -> Self { todo!() }
            /// Adds `by`.
            pub fn add(&self, by: i64) -> i64 { todo!() }
        }
    }));
}

#[test]
fn export_two_scalars() {
    insta::assert_snapshot!(export(
        quote!(),
        quote! {
            /// Adds two integers.
            pub fn add(a: i64, b: i64) -> i64 { a + b }
        },
    ));
}

#[test]
fn export_with_options_borrowed_args_and_fallible_result() {
    insta::assert_snapshot!(export(
        quote!(name = "greet_v2", crate = "my_runtime"),
        quote! {
            fn greet(name: &str, #[abi(expand)] at: Point) -> abi_core::Result<String> {
                Ok(format!("{name} {}", at.x))
            }
        },
    ));
}

#[test]
fn export_with_error_keeps_the_function() {
    insta::assert_snapshot!(export(
        quote!(nmae = "typo"),
        quote! {
            fn add(a: i64, b: i64) -> i64 { a + b }
        },
    ));
}

#[test]
fn derive_named_struct() {
    insta::assert_snapshot!(derive(quote! {
        struct Point {
            x: f64,
            #[abi(rename = "y_coord")]
            y: f64,
        }
    }));
}

#[test]
fn derive_generic_tuple_struct() {
    insta::assert_snapshot!(derive(quote! {
        struct Pair<T>(T, i64);
    }));
}

#[test]
fn derive_with_error_keeps_the_impls() {
    insta::assert_snapshot!(derive(quote! {
        struct Named<'a> {
            name: &'a str,
        }
    }));
}

#[test]
fn import_required_and_optional() {
    insta::assert_snapshot!(import(
        quote!(MathLib),
        quote! {
            extern "C" {
                /// Adds two integers.
                fn add(a: i64, b: i64) -> i64;
                #[abi(name = "greet_v2")]
                fn greet(name: &str) -> String;
                #[abi(optional, fallback = local_fast_add)]
                fn fast_add(a: i64, b: i64) -> i64;
                #[abi(optional)]
                fn maybe() -> ();
            }
        },
    ));
}

#[test]
fn import_with_error_keeps_the_struct() {
    insta::assert_snapshot!(import(
        quote!(MathLib),
        quote! {
            extern "C" {
                fn add(a: i64, b: i64) -> i64;
                fn bad<T>(x: T) -> T;
            }
        },
    ));
}

#[test]
fn export_op_with_shape_rules_and_backward() {
    insta::assert_snapshot!(export(
        quote!(op, backward = grads::matmul_bwd),
        quote! {
            pub fn matmul(a: HostTensor<'_, f32, 2>, b: HostTensor<'_, f32, 2>, n: i64,
                          #[abi(out = [a.0, b.1, n, 3])] c: HostTensorMut<'_, f32, 4>) -> Result<()> { Ok(()) }
        },
    ));
}

#[test]
fn export_op_in_place_with_its_jax_entry() {
    insta::assert_snapshot!(export(
        quote!(op),
        quote! {
            fn axpy_(x: HostTensor<'_, f64, 1>, alpha: f64, #[abi(inout)] y: HostTensorMut<'_, f64, 1>) {}
        },
    ));
}
