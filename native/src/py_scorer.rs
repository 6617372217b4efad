//! The PyO3 bindings of scoring (`scorer.rs`): `UnitIndex`, and `TermTable.claim` (the claim's terms
//! through the same word table as the units). A child module of `python.rs`, which registers it with
//! one call (`register`) and reaches the word table through it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use super::{TermTable, Words};
use crate::chunk::{separate_bytes as separate, separated_words};
use crate::scorer::{Claim, FastMap, Index, IndexBuilder, Params};
use crate::support::SupportClaim;

#[path = "claim_py.rs"]
mod claim_py;

/// Indexes of this many terms or more are scored with the GIL released (other threads run meanwhile);
/// below it, releasing and taking it back costs more than it frees.
const DETACH_MIN_TERMS: usize = 1 << 16;

/// (terms, distinct terms in order of first occurrence, the terms of its names) of a claim.
pub(super) type ClaimTerms<'py> = (
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
);

/// A word's term (None: a stop word), from the table or stemmed and remembered: one lookup for a word
/// the table knows (most of a claim's), and a new word's term id found without copying its stem when
/// another word already has that term.
fn term_of(
    table: &TermTable,
    words: &mut Words,
    py: Python<'_>,
    word: &str,
) -> Option<(u32, Py<PyString>)> {
    if let Some(known) = words.terms.get(word.as_bytes()) {
        return known.as_ref().map(|(id, term)| (*id, term.clone_ref(py)));
    }
    words.remember(py, word, table.stemmer.term(word).as_deref())
}

/// `scoring.claim_names` of an ASCII text: the words (`[\w'-]*` from a capital) that start with a
/// capital letter that is neither inside a word nor first in the text, a line, a sentence, a quotation
/// or a list item.
fn name_words(text: &[u8]) -> Vec<&[u8]> {
    const NAME_AFTER: &[u8] = b".!?:;\"'(*#-\n";
    let not_letter = |b: u8| b"_'-".contains(&b) || b.is_ascii_digit();
    let in_word = |b: u8| b.is_ascii_alphanumeric() || b"_'-".contains(&b);
    let mut found = Vec::new();
    for at in 0..text.len() {
        if !text[at].is_ascii_uppercase() {
            continue;
        }
        let mut i = at;
        while i > 0 && not_letter(text[i - 1]) {
            i -= 1;
        }
        if i > 0 && text[i - 1].is_ascii_alphanumeric() {
            continue; // a capital inside a word ("iPhone", "McDonald")
        }
        let mut i = at;
        while i > 0 && matches!(text[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i > 0 && !NAME_AFTER.contains(&text[i - 1]) {
            let end = at + text[at..].iter().take_while(|&&b| in_word(b)).count();
            found.push(&text[at..end]);
        }
    }
    found
}

/// A claim's analysis through the word table: each term as the table's id and its one `str`, in order;
/// its distinct terms in order of first occurrence; the terms of its names; the table's epoch then (ids
/// compare within one epoch only).
pub(super) struct Analysed {
    pub(super) terms: Vec<(u32, Py<PyString>)>,
    pub(super) distinct: Vec<(u32, Py<PyString>)>,
    pub(super) names: Vec<(u32, Py<PyString>)>,
    pub(super) epoch: u64,
}

/// `TermTable.claim`'s analysis of an ASCII text (None for another: Python analyses it).
pub(super) fn analyse(table: &TermTable, py: Python<'_>, text: &str) -> Option<Analysed> {
    if !text.is_ascii() {
        return None;
    }
    let separated = separate(text);
    let mut guard = table
        .words
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if guard.terms.len() > table.max_words {
        *guard = Words::default();
    }
    let room = separated.len() / 6 + 1; // about a term per six characters
    let mut terms: Vec<(u32, Py<PyString>)> = Vec::with_capacity(room);
    let mut distinct: Vec<(u32, Py<PyString>)> = Vec::with_capacity(room);
    for word in separated_words(&separated) {
        if let Some((id, term)) = term_of(table, &mut guard, py, word) {
            if !distinct.iter().any(|d| d.0 == id) {
                distinct.push((id, term.clone_ref(py)));
            }
            terms.push((id, term));
        }
    }
    let mut names: Vec<(u32, Py<PyString>)> = Vec::new();
    for name in name_words(text.as_bytes()) {
        let name = separate(std::str::from_utf8(name).unwrap_or_default());
        for word in separated_words(&name) {
            if let Some((id, term)) = term_of(table, &mut guard, py, word) {
                if !names.iter().any(|d| d.0 == id) {
                    names.push((id, term));
                }
            }
        }
    }
    let epoch = guard.epoch;
    drop(guard);
    Some(Analysed {
        terms,
        distinct,
        names,
        epoch,
    })
}

/// `TermTable.claim`: the terms of an ASCII claim (`terms._analyze`), its distinct terms in order of
/// first occurrence and the terms of its names (`scoring.claim_names`), through the table's words; None
/// for a text that is not ASCII (Python then analyses it: accents, CJK and the final sigma are its
/// reference's business).
pub(super) fn claim<'py>(
    table: &TermTable,
    py: Python<'py>,
    text: &str,
) -> PyResult<Option<ClaimTerms<'py>>> {
    let Some(found) = analyse(table, py, text) else {
        return Ok(None);
    };
    Ok(Some((
        PyTuple::new(py, found.terms.into_iter().map(|d| d.1))?,
        PyTuple::new(py, found.distinct.into_iter().map(|d| d.1))?,
        PyTuple::new(py, found.names.into_iter().map(|d| d.1))?,
    )))
}

/// UnitIndex(terms, segments, breaks, fragments): the units of one source for scoring (the Rust twin
/// of `unit_index.CountsIndex`), from each unit's terms in order; `locate` finds the span a claim cites
/// and `features` reads the support of cited units.
#[pyclass(frozen, module = "cite_core._native")]
pub(super) struct UnitIndex {
    index: Index,
}

impl UnitIndex {
    /// The index built elsewhere (`py_chunk.rs`: from a chunk's analysis kept in Rust).
    pub(super) fn of(index: Index) -> Self {
        UnitIndex { index }
    }
}

#[pymethods]
impl UnitIndex {
    #[new]
    fn new(
        terms: &Bound<'_, PyList>,
        segments: Vec<u32>,
        breaks: Vec<bool>,
        fragments: Vec<bool>,
    ) -> PyResult<Self> {
        let refused =
            || PyValueError::new_err("UnitIndex: one term tuple, segment and flag per unit");
        if terms.len() != segments.len() {
            return Err(refused());
        }
        let mut builder = IndexBuilder::new(segments, breaks, fragments).map_err(|_| refused())?;
        // a term is one `str` shared by every unit holding it (the term table's): its address finds its
        // id without reading the text again (the list holds every term alive while this runs)
        let mut by_address: FastMap<usize, u32> = FastMap::default();
        let mut ids: Vec<u32> = Vec::new();
        for unit in terms.iter() {
            let unit = unit.cast::<PyTuple>()?;
            ids.clear();
            for term in unit.iter() {
                let address = term.as_ptr() as usize;
                let id = match by_address.get(&address) {
                    Some(&id) => id,
                    None => {
                        let id = builder.intern(term.cast::<PyString>()?.to_str()?);
                        by_address.insert(address, id);
                        id
                    }
                };
                ids.push(id);
            }
            builder.push(&ids).map_err(|_| refused())?;
        }
        Ok(UnitIndex {
            index: builder.build().map_err(|_| refused())?,
        })
    }

    /// locate(weights, total, avg_len, params, verbatim) -> (first, last, top): `span.locate` (see its
    /// docstring); `params` is (k1, b, extend_gain, fragment_weight, tie, long, cap, top) and `verbatim(i)`
    /// is asked on ties only.
    fn locate(
        &self,
        py: Python<'_>,
        weights: Vec<(Bound<'_, PyString>, f64)>,
        total: f64,
        avg_len: f64,
        params: (f64, f64, f64, f64, f64, usize, usize, usize),
        verbatim: &Bound<'_, PyAny>,
    ) -> PyResult<Span> {
        let claim = self.claim(&weights, total)?;
        let p = Params::from(params);
        let index = &self.index;
        let scored = if index.terms() >= DETACH_MIN_TERMS {
            py.detach(|| index.score(&claim, avg_len, &p))
        } else {
            index.score(&claim, avg_len, &p)
        };
        let located = index.locate(&claim, &scored, &p, |unit| {
            verbatim.call1((unit,))?.extract::<i64>()
        })?;
        Ok((located.first, located.last, located.top))
    }

    /// bm25(weights, avg_len, k1, b) -> list[float]: `scoring.bm25` of every unit.
    fn bm25(
        &self,
        weights: Vec<(Bound<'_, PyString>, f64)>,
        avg_len: f64,
        k1: f64,
        b: f64,
    ) -> PyResult<Vec<f64>> {
        let claim = self.claim(&weights, 0.0)?;
        let p = Params {
            k1,
            b,
            extend_gain: 0.0,
            fragment_weight: 1.0,
            tie: 0.0,
            long: 0,
            cap: 0,
            top: 0,
        };
        Ok(self.index.bm25(&claim, avg_len, &p))
    }

    /// features(parts, weights, total, names, units) -> list of 10 floats: `scoring.support_features`
    /// of the claim (`parts`: its `ClaimParts`; its weights, the sum of their idfs, its names) and the
    /// terms of `units` read in that order, the source being these units.
    fn features(
        &self,
        parts: &ClaimParts,
        weights: Vec<(Bound<'_, PyString>, f64)>,
        total: f64,
        names: &Bound<'_, PyAny>,
        units: Vec<usize>,
    ) -> PyResult<[f64; 10]> {
        let claim = self.claim(&weights, total)?;
        if units.iter().any(|&unit| unit >= self.index.len()) {
            return Err(PyValueError::new_err(
                "UnitIndex.features: a unit out of range",
            ));
        }
        let mut ids = Vec::new();
        for name in names.try_iter()? {
            ids.push(self.index.id(name?.cast::<PyString>()?.to_str()?));
        }
        Ok(self.index.features(&claim, &parts.parts, &ids, &units))
    }

    /// The number of terms of all units together.
    fn terms(&self) -> usize {
        self.index.terms()
    }

    fn __len__(&self) -> usize {
        self.index.len()
    }
}

impl UnitIndex {
    fn claim(&self, weights: &[(Bound<'_, PyString>, f64)], total: f64) -> PyResult<Claim> {
        let mut ids = Vec::with_capacity(weights.len());
        let mut idfs = Vec::with_capacity(weights.len());
        for (term, idf) in weights {
            ids.push(self.index.id(term.to_str()?));
            idfs.push(*idf);
        }
        Ok(Claim { ids, idfs, total })
    }
}

/// ClaimParts(weights, terms): what the support features read of a claim, built once per claim for
/// any index: `ClaimTerms.support_parts` (its adjacent term pairs, its numbers, the rarest third of its
/// distinct terms by idf, ties by term) as positions in its weights.
#[pyclass(frozen, module = "cite_core._native")]
struct ClaimParts {
    parts: SupportClaim,
}

#[pymethods]
impl ClaimParts {
    #[new]
    fn new(
        py: Python<'_>,
        weights: Vec<(Bound<'_, PyString>, f64)>,
        terms: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut texts: Vec<&str> = Vec::with_capacity(weights.len());
        let mut position: FastMap<&str, usize> = FastMap::default();
        for (term, _) in &weights {
            let text = term.to_str()?;
            position.entry(text).or_insert(texts.len());
            texts.push(text);
        }
        let mut seq = Vec::new();
        for item in terms.try_iter()? {
            let item = item?;
            match position.get(item.cast::<PyString>()?.to_str()?) {
                Some(&at) => seq.push(at),
                None => return Err(PyValueError::new_err("ClaimParts: a term without a weight")),
            }
        }
        // a number starts with what Python's str.isdigit calls a digit (asked of Python beyond ASCII)
        let mut numbers = Vec::new();
        for (at, text) in texts.iter().enumerate() {
            let digit = match text.chars().next() {
                None => false,
                Some(c) if c.is_ascii() => c.is_ascii_digit(),
                Some(c) => {
                    let mut buf = [0u8; 4];
                    let first = PyString::new(py, c.encode_utf8(&mut buf));
                    first.call_method0("isdigit")?.extract::<bool>()?
                }
            };
            if digit {
                numbers.push(at);
            }
        }
        // highest idf first, ties by term (UTF-8 byte order is code point order, as Python's)
        let mut rare: Vec<usize> = (0..texts.len()).collect();
        rare.sort_by(|&a, &b| {
            weights[b]
                .1
                .total_cmp(&weights[a].1)
                .then_with(|| texts[a].cmp(texts[b]))
        });
        rare.truncate((texts.len() / 3).max(1));
        let parts = SupportClaim::new(&seq, numbers, rare);
        Ok(ClaimParts { parts })
    }
}

/// (first, last, top) of `locate`.
type Span = (Option<usize>, Option<usize>, Option<Vec<usize>>);

/// Adds `UnitIndex` to the module.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<UnitIndex>()?;
    m.add_class::<ClaimParts>()?;
    claim_py::register(m)?;
    m.add("DETACH_MIN_TERMS", DETACH_MIN_TERMS)?;
    Ok(())
}
