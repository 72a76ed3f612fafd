//! Interop fixture (in progress).
