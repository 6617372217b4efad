//! The PyO3 bindings: `cite_core._native`.
//!
//! Offsets cross as Python `str` indices (code points): the text is decoded to `char`s once per call.
//! Lone surrogates have no UTF-8 form, so such a text fails to convert (UnicodeEncodeError) and the
//! Python side retries with U+FFFD in their place, which the segmenter treats alike (neither has any
//! class). A panic becomes PyO3's PanicException, which the Python side turns into a `NativeError`.

use std::sync::OnceLock;

use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::chars::{Table, ALNUM, ALPHA, DECIMAL, DIGIT, LOWER, SPACE, UPPER};
use crate::segment;

/// Texts longer than this are segmented with the GIL released (other threads run meanwhile); for a
/// short text, releasing and taking it back costs more than it frees.
const DETACH_MIN_CHARS: usize = 1 << 16;

static TABLE: OnceLock<Table> = OnceLock::new();

fn table() -> &'static Table {
    TABLE.get_or_init(Table::new)
}

/// The flags of one character, from Python's own `str` methods.
fn ask(py: Python<'_>, c: char) -> PyResult<u8> {
    let mut buf = [0u8; 4];
    let s = PyString::new(py, c.encode_utf8(&mut buf));
    let mut flags = 0;
    for (name, flag) in [
        ("isspace", SPACE),
        ("islower", LOWER),
        ("isupper", UPPER),
        ("isalpha", ALPHA),
        ("isdecimal", DECIMAL),
        ("isdigit", DIGIT),
        ("isalnum", ALNUM),
    ] {
        if s.call_method0(name)?.extract::<bool>()? {
            flags |= flag;
        }
    }
    Ok(flags)
}

/// The text as `char`s, with the class of each of them known to the table.
fn prepare(py: Python<'_>, text: &str) -> PyResult<Vec<char>> {
    let table = table();
    table.fill(text, |c| ask(py, c))?;
    Ok(text.chars().collect())
}

fn run<T: Send>(py: Python<'_>, chars: &[char], f: impl FnOnce(&[char], &Table) -> T + Send) -> T {
    let table = table();
    if chars.len() >= DETACH_MIN_CHARS {
        py.detach(|| f(chars, table))
    } else {
        f(chars, table)
    }
}

/// split_sentences(text) -> list[tuple[int, int]]: `cite_core._sources.segment.split_sentences`.
#[pyfunction]
fn split_sentences(py: Python<'_>, text: &str) -> PyResult<Vec<(usize, usize)>> {
    let chars = prepare(py, text)?;
    Ok(run(py, &chars, |t, table| {
        segment::split_sentences(t, table)
    }))
}

/// split_lines(piece, offset) -> list[tuple[int, int]]: `split_lines` of the whole of `piece`, the
/// text from `offset` on (the caller slices, so a call costs the piece, not the whole text).
#[pyfunction]
fn split_lines(py: Python<'_>, piece: &str, offset: usize) -> PyResult<Vec<(usize, usize)>> {
    let chars = prepare(py, piece)?;
    let spans = run(py, &chars, |t, table| {
        segment::split_lines(t, table, 0, t.len())
    });
    Ok(spans
        .into_iter()
        .map(|(a, b)| (a + offset, b + offset))
        .collect())
}

/// split_units(text) -> list[tuple[int, int]]: the sentences of `text` cut at their line breaks.
#[pyfunction]
fn split_units(py: Python<'_>, text: &str) -> PyResult<Vec<(usize, usize)>> {
    let chars = prepare(py, text)?;
    Ok(run(py, &chars, segment::split_units))
}

/// _panic(): panics, for the test that a panic reaches Python as an exception, never an abort.
#[pyfunction]
fn _panic() {
    panic!("cite_core._native._panic was called");
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(split_sentences, m)?)?;
    m.add_function(wrap_pyfunction!(split_lines, m)?)?;
    m.add_function(wrap_pyfunction!(split_units, m)?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    m.add("PanicException", m.py().get_type::<PanicException>())?;
    m.add("WRAP_MIN", segment::WRAP_MIN)?;
    Ok(())
}
