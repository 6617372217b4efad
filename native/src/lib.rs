//! The compiled hot path of cite-anything, imported as `cite_core._native`.
//!
//! The pure-Rust core (`chars`, `lexer`, `segment`, `terms`) builds without Python (`cargo test
//! --no-default-features`, the fuzz targets); `python` and `lexer_py` hold the PyO3 bindings. The
//! Python implementation in `cite_core` is the reference: every function here returns exactly what
//! its Python twin returns.
#![deny(unsafe_code)]

pub mod chars;
pub mod chunk;
pub mod lexer;
pub mod logistic;
pub mod scorer;
pub mod segment;
pub mod span;
pub mod support;
pub mod terms;
pub mod vocab;

#[cfg(feature = "python")]
mod lexer_py;
#[cfg(feature = "python")]
mod python;
