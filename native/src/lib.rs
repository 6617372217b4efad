//! The compiled hot path of cite-anything, imported as `cite_core._native`.
//!
//! The pure-Rust core (`chars`, `segment`) builds without Python (`cargo test --no-default-features`,
//! the fuzz targets); `python` holds the PyO3 bindings. The Python implementation in `cite_core` is the
//! reference: every function here returns exactly what its Python twin returns.
#![deny(unsafe_code)]

pub mod chars;
pub mod scorer;
pub mod segment;
pub mod span;
pub mod support;
pub mod terms;

#[cfg(feature = "python")]
mod python;
