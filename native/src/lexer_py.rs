//! The PyO3 bindings of the lexer's plain-text scan, `cite_core._native.PlainPath`, and of the stream's
//! steady path, `SteadyPath` (a plain chunk while nothing is pending: its event in one call).
//!
//! The chunk crosses as a borrowed `&str` (its UTF-8 form, cached by CPython for a non-ASCII `str`): no
//! copy, no decoding to `char`s. A chunk with a lone surrogate has no UTF-8 form and raises
//! UnicodeEncodeError; the lexer then takes the general path.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyString, PyTuple};

use crate::lexer::{Steady, Stops};

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

/// The pieces of a `TextDelta` built without validation, as `plain_path.STEADY_EVENT` gives them: the
/// class, its `__dict__` but for the text, its fields set (the text field first), `object.__new__` and
/// the setters of BaseModel's four slots.
type EventParts = (
    Py<PyAny>,
    Py<PyDict>,
    Py<PyTuple>,
    Py<PyAny>,
    Py<PyAny>,
    Py<PyAny>,
    Py<PyAny>,
    Py<PyAny>,
);

/// What an armed `SteadyPath` writes into: the assembler's fast texts, the stream's model text (None:
/// not kept).
struct Armed {
    fast: Py<PyList>,
    raw: Option<Py<PyList>>,
}

/// SteadyPath(stops, max_ws, event): `CitationStream.feed` of a plain chunk while the stream is steady,
/// in one call (`cite_core/_stream/plain_path.py`'s `PythonSteadyPath`, the reference).
#[pyclass(module = "cite_core._native")]
pub struct SteadyPath {
    stops: Stops,
    max_ws: usize,
    event: EventParts,
    armed: Option<Armed>,
    held: String,
}

#[pymethods]
impl SteadyPath {
    #[new]
    fn new(stops: &str, max_ws: usize, event: EventParts) -> Self {
        SteadyPath {
            stops: Stops::new(stops),
            max_ws,
            event,
            armed: None,
            held: String::new(),
        }
    }

    /// arm(fast, raw, held): steady from now on, the spaces `held` held.
    fn arm(&mut self, fast: Py<PyList>, raw: Option<Py<PyList>>, held: &str) {
        self.armed = Some(Armed { fast, raw });
        self.held.clear();
        self.held.push_str(held);
    }

    /// disarm() -> str: no longer steady; the spaces held.
    fn disarm(&mut self) -> String {
        self.armed = None;
        std::mem::take(&mut self.held)
    }

    /// feed(chunk) -> list | None: the events of a plain chunk when armed, else None (nothing changed).
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(armed) = &self.armed else {
            return Ok(None);
        };
        let Ok(string) = chunk.cast_exact::<PyString>() else {
            return Ok(None);
        };
        let Ok(text) = string.to_str() else {
            return Ok(None); // a lone surrogate: the general path replaces it
        };
        let body = match self.stops.steady(text, self.held.len(), self.max_ws) {
            Steady::Refuse => return Ok(None),
            Steady::Hold => {
                self.held.push_str(text);
                if let Some(raw) = &armed.raw {
                    raw.bind(py).append(string)?;
                }
                return Ok(Some(PyList::empty(py)));
            }
            Steady::Text { body } => body,
        };
        let out = if self.held.is_empty() && body == text.len() {
            string.clone()
        } else {
            let mut joined = std::mem::take(&mut self.held);
            joined.push_str(&text[..body]);
            PyString::new(py, &joined)
        };
        self.held.clear();
        self.held.push_str(&text[body..]);
        armed.fast.bind(py).append(&out)?;
        if let Some(raw) = &armed.raw {
            raw.bind(py).append(string)?;
        }
        let (cls, template, fields, new, set_dict, set_fields, set_extra, set_private) =
            &self.event;
        let fields = fields.bind(py);
        let event = new.bind(py).call1((cls.bind(py),))?;
        let values = template.bind(py).copy()?;
        values.set_item(fields.get_item(0)?, &out)?;
        set_dict.bind(py).call1((&event, values))?;
        set_fields
            .bind(py)
            .call1((&event, PySet::new(py, fields.iter())?))?;
        set_extra.bind(py).call1((&event, py.None()))?;
        set_private.bind(py).call1((&event, py.None()))?;
        Ok(Some(PyList::new(py, [event])?))
    }
}
