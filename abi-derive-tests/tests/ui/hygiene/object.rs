// The object derive and `#[methods]` name nothing from the prelude and raise no warning of
// their own.
#![deny(warnings)]
#![no_implicit_prelude]

::core::include!("shared/shadows.rs");

/// A gauge.
#[derive(::abi_core::Object)]
#[abi(type_key = "hygiene.Gauge")]
pub struct Gauge {
    /// Its name.
    #[abi(get)]
    pub name: ::std::string::String,
    #[abi(get, set)]
    pub level: ::std::sync::atomic::AtomicI64,
}

#[::abi_core::methods]
impl Gauge {
    /// A gauge.
    #[abi(init)]
    pub fn new(name: ::std::string::String) -> Self {
        Gauge { name, level: ::std::sync::atomic::AtomicI64::new(0) }
    }
    /// The level.
    pub fn read(&self) -> i64 {
        self.level.load(::std::sync::atomic::Ordering::SeqCst)
    }
    /// An empty gauge.
    pub fn empty() -> ::abi_core::Obj<Gauge> {
        ::abi_core::Obj::new(Gauge::new(::std::string::String::new()))
    }
}

/// Reads a gauge.
#[::abi_core::export_fn]
pub fn gauge_level(g: &Gauge) -> i64 {
    g.read()
}

fn main() {
    let g = ::abi_core::Obj::new(Gauge::new(::std::string::ToString::to_string("g")));
    ::std::assert_eq!(gauge_level(&g), 0);
    ::std::assert_eq!(Gauge::empty().read(), 0);
}
