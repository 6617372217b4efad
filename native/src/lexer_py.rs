//! The PyO3 binding of the lexer's plain-text scan: `cite_core._native.PlainPath`.
//!
//! The chunk crosses as a borrowed `&str` (its UTF-8 form, cached by CPython for a non-ASCII `str`): no
//! copy, no decoding to `char`s. A chunk with a lone surrogate has no UTF-8 form and raises
//! UnicodeEncodeError; the lexer then takes the general path.

use pyo3::prelude::*;

use crate::lexer::Stops;

/// PlainPath(stops): `scan(chunk)` is the length of the plain text `chunk` starts with, up to its
/// first character of `stops` (`cite_core/_stream/plain_path.py`'s `PythonPlainPath`).
#[pyclass(frozen, module = "cite_core._native")]
pub struct PlainPath {
    stops: Stops,
}

#[pymethods]
impl PlainPath {
    #[new]
    fn new(stops: &str) -> Self {
        PlainPath {
            stops: Stops::new(stops),
        }
    }

    /// scan(chunk) -> int: the index (in code points) of the first stop character, or len(chunk).
    fn scan(&self, chunk: &str) -> usize {
        self.stops.plain_len(chunk)
    }
}
