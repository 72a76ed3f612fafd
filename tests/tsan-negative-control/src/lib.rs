//! A deliberate data race: two threads write one `u64` through raw pointers with no
//! synchronisation. ThreadSanitizer must report it.

#[cfg(test)]
mod tests {
    struct Shared(*mut u64);
    // SAFETY: deliberately wrong; this crate exists so the race detector reports it.
    unsafe impl Send for Shared {}

    #[test]
    fn unsynchronised_writes_from_two_threads() {
        let cell = Box::into_raw(Box::new(0u64));
        let writers: Vec<_> = (0..2)
            .map(|t| {
                let p = Shared(cell);
                std::thread::spawn(move || {
                    let p = p;
                    for i in 0..1000 {
                        // SAFETY: none: the race is the point.
                        unsafe { core::ptr::write_volatile(p.0, i + t) };
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        // SAFETY: both threads are joined; the box is ours again.
        drop(unsafe { Box::from_raw(cell) });
    }
}
