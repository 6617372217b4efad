//! The PyO3 bindings: `cite_core._native`.
//!
//! Offsets cross as Python `str` indices (code points): the text is decoded to `char`s once per call.
//! Lone surrogates have no UTF-8 form, so such a text fails to convert (UnicodeEncodeError) and the
//! Python side retries with U+FFFD in their place, which the segmenter treats alike (neither has any
//! class). A panic becomes PyO3's PanicException, which the Python side turns into a `NativeError`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use pyo3::exceptions::PyValueError;
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::chars::{Table, ALNUM, ALPHA, DECIMAL, DIGIT, LOWER, SPACE, UPPER};
use crate::segment;
use crate::terms::{ascii_words, SmallStr, Stemmer, WordMap};

#[path = "py_chunk.rs"]
mod py_chunk;
#[path = "py_corpus.rs"]
mod py_corpus;
#[path = "py_scorer.rs"]
mod py_scorer;

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
    if text.is_ascii() {
        // every ASCII class is known from the start: the bytes are the characters
        return Ok(text.bytes().map(char::from).collect());
    }
    // one pass decodes and asks about the characters not yet known
    let table = table();
    let mut chars = Vec::with_capacity(text.len());
    for c in text.chars() {
        if !c.is_ascii() && table.get(c) == 0 {
            table.set(c, ask(py, c)?);
        }
        chars.push(c);
    }
    Ok(chars)
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

use crate::scorer::FastMap;

/// What the table knows: each word's term (None: a stop word) as the term's id and its one `str`.
struct Words {
    terms: WordMap<SmallStr, Option<(u32, Py<PyString>)>>,
    ids: WordMap<SmallStr, u32>,
    /// which table this is: a new one (the table starting over) gives the same term another id, so
    /// ids are compared only within one epoch (`py_chunk.rs`)
    epoch: u64,
    /// term id -> local id of the chunk being analysed (`py_chunk.rs`)
    scratch: crate::chunk::Scratch,
}

const WORDS_ROOM: usize = 512;

static EPOCHS: AtomicU64 = AtomicU64::new(0);

impl Words {
    /// A word met for the first time, remembered with its term (None: a stop word): the term's id (the
    /// next one for a term no word had) and one `str` of it. Every path that meets new words takes this
    /// one: a chunk's analysis (`py_chunk.rs`), `TermTable.units`, a claim's `term_of` (`py_scorer.rs`).
    fn remember(
        &mut self,
        py: Python<'_>,
        word: &str,
        term: Option<&str>,
    ) -> Option<(u32, Py<PyString>)> {
        let found = term.map(|t| {
            // looked up by bytes before a key is made: a key of more than 22 bytes allocates
            let id = match self.ids.get(t.as_bytes()) {
                Some(&id) => id,
                None => {
                    let id = self.ids.len() as u32;
                    self.ids.insert(t.into(), id);
                    id
                }
            };
            (id, PyString::new(py, t).unbind())
        });
        let kept = found.as_ref().map(|(id, term)| (*id, term.clone_ref(py)));
        self.terms.insert(word.into(), kept);
        found
    }
}

impl Default for Words {
    fn default() -> Self {
        // room for the words of a few chunks: a table that starts over (`clear_caches`) grows again
        Words {
            terms: WordMap::with_capacity_and_hasher(WORDS_ROOM, Default::default()),
            ids: WordMap::with_capacity_and_hasher(WORDS_ROOM, Default::default()),
            epoch: EPOCHS.fetch_add(1, Ordering::Relaxed),
            scratch: Default::default(),
        }
    }
}

/// TermTable(stop, suffixes, max_words): word -> term, remembered (the Rust twin of terms.py's
/// `_TermTable`, for the ASCII path of a chunk's analysis). Each term is one Python `str` object shared by
/// every unit that has it (memory: 10,000 sources share their words' terms). The table starts over when
/// it holds more than `max_words` words.
#[pyclass(frozen, module = "cite_core._native")]
struct TermTable {
    stemmer: Stemmer,
    words: Mutex<Words>,
    max_words: usize,
}

type UnitTerms<'py> = (Bound<'py, PyList>, Bound<'py, PyList>, Vec<usize>);

#[pymethods]
impl TermTable {
    #[new]
    fn new(stop: Vec<String>, suffixes: Vec<String>, max_words: usize) -> Self {
        TermTable {
            stemmer: Stemmer::new(&stop, &suffixes),
            words: Mutex::new(Words::default()),
            max_words,
        }
    }

    /// units(separated, spans) -> (terms, counts, lengths): for each span of `separated` (a chunk
    /// lower-cased, every character but ASCII letters and digits made a space), its terms (a tuple), a
    /// dict term -> count in order of first occurrence, and the number of terms.
    fn units<'py>(
        &self,
        py: Python<'py>,
        separated: &str,
        spans: Vec<(usize, usize)>,
    ) -> PyResult<UnitTerms<'py>> {
        if !separated.is_ascii() {
            return Err(PyValueError::new_err(
                "TermTable.units: the separated text must be ASCII",
            ));
        }
        let n = separated.len();
        if let Some(&(a, b)) = spans.iter().find(|&&(a, b)| a > b || b > n) {
            return Err(PyValueError::new_err(format!(
                "TermTable.units: span ({a}, {b}) outside 0..{n}"
            )));
        }
        let mut guard = self.words.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.terms.len() > self.max_words {
            *guard = Words::default();
        }
        // first every new word of the chunk, then (the table no longer changing) the units
        for (a, b) in &spans {
            for word in ascii_words(&separated[*a..*b]) {
                if !guard.terms.contains_key(word.as_bytes()) {
                    guard.remember(py, word, self.stemmer.term(word).as_deref());
                }
            }
        }
        // each unit's term ids, and one `str` per id, read under the lock; the lists, tuples and dicts
        // are made after it: the garbage collector may run while they are, and run Python code that
        // lets another thread take the GIL and wait on this lock
        let mut units: Vec<Vec<u32>> = Vec::with_capacity(spans.len());
        let mut strs: FastMap<u32, Py<PyString>> = FastMap::default();
        for (a, b) in &spans {
            let mut ids = Vec::new();
            for word in ascii_words(&separated[*a..*b]) {
                if let Some(Some((id, term))) = guard.terms.get(word.as_bytes()) {
                    ids.push(*id);
                    strs.entry(*id).or_insert_with(|| term.clone_ref(py));
                }
            }
            units.push(ids);
        }
        drop(guard);
        let all_terms = PyList::empty(py);
        let all_counts = PyList::empty(py);
        let mut lengths = Vec::with_capacity(spans.len());
        let mut order: Vec<(u32, usize)> = Vec::new();
        for ids in units {
            order.clear();
            for &id in &ids {
                // counts in order of first occurrence; a unit has few distinct terms
                match order.iter_mut().find(|entry| entry.0 == id) {
                    Some(entry) => entry.1 += 1,
                    None => order.push((id, 1)),
                }
            }
            let counts = PyDict::new(py);
            for &(id, count) in &order {
                counts.set_item(strs[&id].bind(py), count)?;
            }
            lengths.push(ids.len());
            all_terms.append(PyTuple::new(py, ids.iter().map(|id| strs[id].bind(py)))?)?;
            all_counts.append(counts)?;
        }
        Ok((all_terms, all_counts, lengths))
    }

    /// claim(text) -> (terms, distinct) | None: a claim's terms (py_scorer.rs).
    fn claim<'py>(
        &self,
        py: Python<'py>,
        text: &str,
    ) -> PyResult<Option<py_scorer::ClaimTerms<'py>>> {
        py_scorer::claim(self, py, text)
    }

    /// Forget every word's term.
    fn clear(&self) {
        *self.words.lock().unwrap_or_else(PoisonError::into_inner) = Words::default();
    }

    fn __len__(&self) -> usize {
        self.words
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .terms
            .len()
    }
}

impl TermTable {
    /// The epoch of the words known now.
    fn epoch(&self) -> u64 {
        self.words
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .epoch
    }
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
    m.add_class::<TermTable>()?;
    m.add_class::<crate::lexer_py::PlainPath>()?;
    m.add_class::<crate::lexer_py::SteadyPath>()?;
    py_scorer::register(m)?;
    py_chunk::register(m)?;
    py_corpus::register(m)?;
    m.add("PanicException", m.py().get_type::<PanicException>())?;
    m.add("WRAP_MIN", segment::WRAP_MIN)?;
    Ok(())
}
