//! The PyO3 bindings of a chunk's analysis in one call (`ChunkAnalyser.analyse`): segmentation, the
//! ASCII separation, each unit's terms through the word table, fragment flags and line breaks, kept in
//! Rust as a `ChunkIndex` that builds the compiled `UnitIndex` without reading a term tuple back, gives
//! the units' term counts only when a Python reader asks, and sums with the other chunks of a corpus
//! into its document frequencies (`py_corpus.rs`). A child module of `python.rs`, registered by
//! `register`.
//!
//! The Python of `cite_core/_sources/chunk_analyser.py` (`PythonChunkAnalyser`) is the reference: the same
//! spans, terms, lengths, counts, flags and frequencies for every text this call accepts; it answers
//! None for a text with a capital sigma (final sigma), which then goes the reference's way. A chunk of
//! ASCII words (the rest separators) is cut on one separated copy; others are lower-cased a character
//! at a time (Python's `lower`, asked once per character) and cut as `terms._TOKEN` cuts them.

use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySet, PyString, PyTuple};

use super::py_scorer::UnitIndex;
use super::{ask, prepare, run, table, TermTable, Words};
use crate::chars::ALNUM;
use crate::chunk::{self, Class, LocalTerms};
use crate::scorer::{FastMap, IndexBuilder};
use crate::segment;

/// Indexes of this many terms or more are built with the GIL released.
const DETACH_MIN_TERMS: usize = 1 << 16;

/// GREEK CAPITAL LETTER SIGMA: Python lower-cases it by its neighbours (final sigma).
const FINAL_SIGMA: char = '\u{3a3}';

/// The answers of the separator question kept at most (one per distinct non-ASCII character met).
const SEPARATORS_MAX: usize = 1 << 16;

/// ChunkAnalyser(table, ends, closers, separator): analyses chunk texts through the word table
/// `table`; `ends` and `closers` are `analysis._ENDS` and `_CLOSERS`, `separator(c)` says whether the
/// non-ASCII character `c` is a space to `terms.ascii_separated` (asked once per character).
#[pyclass(frozen, module = "cite_core._native")]
struct ChunkAnalyser {
    table: Py<TermTable>,
    ends: Vec<char>,
    closers: Vec<char>,
    separator: Py<PyAny>,
    separators: Mutex<FastMap<char, bool>>,
    /// `terms._TOKEN`'s CJK ranges and `CJK_STOP`
    cjk: Vec<(char, char)>,
    cjk_stop: Vec<char>,
    /// Python's `c.lower()` of each non-ASCII character met in a chunk with other words
    lower: Mutex<FastMap<char, Box<[char]>>>,
}

/// (the units' starts, their ends, each unit's number of terms, the chunk kept in Rust): starts and ends
/// as two lists of numbers, and no term tuple: a unit's terms are made when a Python reader asks
/// (`ChunkIndex.unit`, `ChunkIndex.units`), so that a chunk whose units are never read one by one (most
/// of a never-seen query's) costs Python no tuple per unit, nor the garbage collections they set off.
type Analysed = (Vec<usize>, Vec<usize>, Vec<usize>, ChunkIndex);

#[pymethods]
impl ChunkAnalyser {
    #[new]
    #[pyo3(signature = (table, ends, closers, separator, cjk, cjk_stop))]
    fn new(
        table: Py<TermTable>,
        ends: &str,
        closers: &str,
        separator: Py<PyAny>,
        cjk: Vec<(char, char)>,
        cjk_stop: &str,
    ) -> Self {
        ChunkAnalyser {
            table,
            ends: ends.chars().collect(),
            closers: closers.chars().collect(),
            separator,
            separators: Mutex::new(FastMap::default()),
            cjk,
            cjk_stop: cjk_stop.chars().collect(),
            lower: Mutex::new(FastMap::default()),
        }
    }

    /// analyse(text, blocks) -> (starts, ends, lengths, chunk) | None: the units of a chunk text (its
    /// sentences cut at their lines; the whole text for a block), each unit's number of terms, and the
    /// `ChunkIndex` that holds their terms; None for a text with a capital sigma and a word that is not
    /// ASCII (Python lower-cases the sigma by its neighbours).
    fn analyse(&self, py: Python<'_>, text: &str, blocks: bool) -> PyResult<Option<Analysed>> {
        let chars = prepare(py, text)?;
        let separated = chunk::separate(&chars, |c| self.is_separator(py, c))?;
        if separated.is_none() && chars.contains(&FINAL_SIGMA) {
            return Ok(None); // its lower case depends on its neighbours: Python's business
        }
        let spans = if blocks {
            vec![(0, chars.len())]
        } else {
            run(py, &chars, segment::split_units)
        };
        let fragments = chunk::fragments(&chars, &spans, &self.ends, &self.closers);
        let breaks = chunk::breaks(&chars, &spans);
        let (epoch, mut local, terms) = match &separated {
            // ASCII words (the rest spaces): each unit's words are a slice of the separated text
            Some(separated) => {
                let mut pieces = Vec::with_capacity(spans.len());
                for &(a, b) in &spans {
                    pieces.push(std::str::from_utf8(&separated[a..b]).map_err(|_| {
                        PyValueError::new_err("ChunkAnalyser: a span off a character")
                    })?);
                }
                let words = pieces
                    .iter()
                    .map(|p| chunk::separated_words(p).map(|w| (w, false)));
                self.unit_terms(py, words, (spans.len(), chars.len()))?
            }
            // other words: each unit lower-cased as Python does and cut as `terms._TOKEN` cuts it
            None => {
                let mut tokens = Vec::with_capacity(spans.len());
                for &(a, b) in &spans {
                    tokens.push(self.tokens(py, &chars[a..b])?);
                }
                self.unit_terms(
                    py,
                    tokens
                        .iter()
                        .map(|unit| unit.iter().map(|(t, cjk)| (t.as_str(), *cjk))),
                    (spans.len(), chars.len()),
                )?
            }
        };
        drop(chars);
        local.finish();
        let lengths = (0..local.units()).map(|i| local.unit(i).len()).collect();
        let chunk = ChunkIndex {
            epoch,
            terms,
            local,
            breaks,
            fragments,
        };
        let (starts, ends) = spans.into_iter().unzip();
        Ok(Some((starts, ends, lengths, chunk)))
    }

    /// analyse_many(keys) -> list[(starts, ends, lengths, chunk) | None]: `analyse(text, blocks)` of
    /// each (text, blocks) in one call (the chunks a corpus's statistics need: one call each cost
    /// about a tenth of their analysis); None also for a text without a UTF-8 form (a lone surrogate),
    /// which the reference analyses as `analyse`'s UnicodeEncodeError sends it there.
    fn analyse_many(
        &self,
        py: Python<'_>,
        keys: Vec<(Bound<'_, PyString>, bool)>,
    ) -> PyResult<Vec<Option<Analysed>>> {
        let mut out = Vec::with_capacity(keys.len());
        for (text, blocks) in &keys {
            out.push(match text.to_str() {
                Ok(text) => self.analyse(py, text, *blocks)?,
                Err(_) => None,
            });
        }
        Ok(out)
    }
}

impl ChunkAnalyser {
    /// Whether `terms.ascii_separated` makes the non-ASCII character `c` a space (asked of Python once).
    fn is_separator(&self, py: Python<'_>, c: char) -> PyResult<bool> {
        let known = self
            .separators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&c)
            .copied();
        if let Some(answer) = known {
            return Ok(answer);
        }
        // asked with no lock held: Python code may let another thread run
        let mut buf = [0u8; 4];
        let s = PyString::new(py, c.encode_utf8(&mut buf));
        let answer = self.separator.bind(py).call1((s,))?.extract::<bool>()?;
        let mut known = self
            .separators
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if known.len() < SEPARATORS_MAX {
            known.insert(c, answer);
        }
        Ok(answer)
    }

    /// The lower-cased unit cut into words and CJK terms, as `terms._analyze` cuts it.
    fn tokens(&self, py: Python<'_>, unit: &[char]) -> PyResult<Vec<(String, bool)>> {
        let mut lowered = Vec::with_capacity(unit.len());
        for &c in unit {
            if c.is_ascii() {
                lowered.push(c.to_ascii_lowercase());
            } else {
                lowered.extend_from_slice(&self.lower_of(py, c)?);
            }
        }
        let classes = table();
        for &c in &lowered {
            if !c.is_ascii() && classes.get(c) == 0 {
                classes.set(c, ask(py, c)?);
            }
        }
        let class = |c: char| {
            if self.cjk.iter().any(|&(a, b)| a <= c && c <= b) {
                Class::Cjk
            } else if c != '_' && classes.get(c) & ALNUM != 0 {
                Class::Word
            } else {
                Class::Other
            }
        };
        Ok(chunk::tokens(&lowered, class, &self.cjk_stop))
    }

    /// Python's `c.lower()` (asked once per character).
    fn lower_of(&self, py: Python<'_>, c: char) -> PyResult<Box<[char]>> {
        if let Some(known) = self
            .lower
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&c)
        {
            return Ok(known.clone());
        }
        let mut buf = [0u8; 4];
        let s = PyString::new(py, c.encode_utf8(&mut buf));
        let lowered: String = s.call_method0("lower")?.extract()?;
        let lowered: Box<[char]> = lowered.chars().collect();
        let mut known = self.lower.lock().unwrap_or_else(PoisonError::into_inner);
        if known.len() < SEPARATORS_MAX {
            known.insert(c, lowered.clone());
        }
        Ok(lowered)
    }

    /// Each unit's terms as local ids, with each local id's `str` and the table's epoch, from each
    /// unit's words (`false`: mapped to its term by the word table) and CJK terms (`true`: as they
    /// are); `spans` units of a text of `chars` characters, for the vectors' room.
    /// Under the table's lock only strings are made (no object the garbage collector tracks, whose
    /// collection could run Python code and let another thread wait on the lock while holding the GIL).
    fn unit_terms<'w, U, W>(
        &self,
        py: Python<'_>,
        units: U,
        (spans, chars): (usize, usize),
    ) -> PyResult<(u64, LocalTerms, Vec<Py<PyString>>)>
    where
        U: Iterator<Item = W>,
        W: Iterator<Item = (&'w str, bool)>,
    {
        let table = self.table.get();
        let mut guard = table.words.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.terms.len() > table.max_words {
            *guard = Words::default();
        }
        let words = &mut *guard;
        words.scratch.begin();
        // English prose holds a term about every 8 characters and a new one about every 16 (a 4 KB
        // chunk: some 350 terms, 250 distinct)
        let mut local = LocalTerms::with_capacity(spans, chars / 8, chars / 16);
        let mut terms: Vec<Py<PyString>> = Vec::with_capacity(chars / 16);
        let mut stem = String::new(); // each new word's term, written in place (no allocation a word)
        for unit in units {
            for (word, cjk) in unit {
                if let Some(known) = words.terms.get(word.as_bytes()) {
                    if let Some((id, term)) = known {
                        if local.push(&mut words.scratch, *id).1 {
                            terms.push(term.clone_ref(py));
                        }
                    }
                    continue;
                }
                // a word met for the first time: its term, its id, one `str`, remembered (a CJK term
                // is its own term: no word holds a CJK character, so the two never share a key)
                let term = if cjk {
                    Some(word)
                } else {
                    table
                        .stemmer
                        .term_in(word, &mut stem)
                        .then_some(stem.as_str())
                };
                if let Some((id, term)) = words.remember(py, word, term) {
                    if local.push(&mut words.scratch, id).1 {
                        terms.push(term);
                    }
                }
            }
            local.end_unit();
        }
        Ok((words.epoch, local, terms))
    }
}

/// The analysis of one chunk text kept in Rust: each unit's terms as ids local to the chunk (with each
/// id's `str` and its id in the word table of epoch `epoch`), fragment flags and line breaks.
#[pyclass(frozen, module = "cite_core._native")]
pub(super) struct ChunkIndex {
    pub(super) epoch: u64,
    pub(super) terms: Vec<Py<PyString>>,
    pub(super) local: LocalTerms,
    breaks: Vec<bool>,
    fragments: Vec<bool>,
}

#[pymethods]
impl ChunkIndex {
    /// counts() -> list[dict[str, int]]: each unit's term -> count, in order of first occurrence.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for i in 0..self.local.units() {
            let counts = PyDict::new(py);
            for (id, count) in self.local.counts(i) {
                counts.set_item(self.terms[id as usize].bind(py), count)?;
            }
            out.append(counts)?;
        }
        Ok(out)
    }

    /// unit(i) -> tuple[str, ...]: the terms of unit `i` in order (`i` as a Python index: negative
    /// counts from the end).
    fn unit<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyTuple>> {
        let n = self.local.units();
        let at = if i < 0 {
            i.checked_add_unsigned(n)
        } else {
            Some(i)
        };
        match at
            .and_then(|at| usize::try_from(at).ok())
            .filter(|&at| at < n)
        {
            Some(at) => self.unit_tuple(py, at),
            None => Err(PyIndexError::new_err("unit index out of range")),
        }
    }

    /// units() -> list[tuple[str, ...]]: the terms of every unit.
    fn units<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for i in 0..self.local.units() {
            out.append(self.unit_tuple(py, i)?)?;
        }
        Ok(out)
    }

    /// terms() -> set[str]: every term of the chunk.
    fn terms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PySet>> {
        PySet::new(py, self.terms.iter().map(|t| t.bind(py)))
    }

    /// fragments() -> list[bool]: `analysis._fragments` of the units.
    fn fragments(&self) -> Vec<bool> {
        self.fragments.clone()
    }

    /// breaks() -> list[bool]: whether a line break lies between each unit and the next.
    fn breaks(&self) -> Vec<bool> {
        self.breaks.clone()
    }

    /// index() -> UnitIndex: the compiled index of the units (segment 0), as `UnitIndex(terms, ...)`
    /// of their term tuples builds it.
    fn index(&self, py: Python<'_>) -> PyResult<UnitIndex> {
        compose(py, &[self], self.breaks.clone())
    }

    fn __len__(&self) -> usize {
        self.local.units()
    }
}

impl ChunkIndex {
    fn unit_tuple<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            self.local
                .unit(i)
                .iter()
                .map(|&id| self.terms[id as usize].bind(py)),
        )
    }
}

/// The compiled index of the units of `chunks` one after another, the units of chunk i in segment i.
fn compose(py: Python<'_>, chunks: &[&ChunkIndex], breaks: Vec<bool>) -> PyResult<UnitIndex> {
    let refused = || PyValueError::new_err("compose_index: one line break between units");
    let units: usize = chunks.iter().map(|c| c.local.units()).sum();
    if breaks.len() != units.saturating_sub(1) {
        return Err(refused());
    }
    let mut segments = Vec::with_capacity(units);
    let mut fragments = Vec::with_capacity(units);
    for (i, c) in chunks.iter().enumerate() {
        let segment = u32::try_from(i).map_err(|_| refused())?;
        segments.extend(std::iter::repeat_n(segment, c.local.units()));
        fragments.extend_from_slice(&c.fragments);
    }
    let mut builder = IndexBuilder::new(segments, breaks, fragments).map_err(|_| refused())?;
    builder.reserve(chunks.iter().map(|c| c.terms.len()).sum());
    let mut ids: Vec<u32> = Vec::new();
    for c in chunks {
        // interned in local order: the builder's ids of the chunk's terms
        let mut map = Vec::with_capacity(c.terms.len());
        for t in &c.terms {
            map.push(builder.intern(t.bind(py).to_str()?));
        }
        for i in 0..c.local.units() {
            ids.clear();
            ids.extend(c.local.unit(i).iter().map(|&l| map[l as usize]));
            builder.push(&ids).map_err(|_| refused())?;
        }
    }
    let index = if builder_terms(chunks) >= DETACH_MIN_TERMS {
        py.detach(|| builder.build())
    } else {
        builder.build()
    };
    Ok(UnitIndex::of(index.map_err(|_| refused())?))
}

fn builder_terms(chunks: &[&ChunkIndex]) -> usize {
    chunks.iter().map(|c| c.local.seq.len()).sum()
}

/// compose_index(chunks, breaks) -> UnitIndex: the compiled index of a source of several segments,
/// the units of chunk i in segment i; `breaks` between every two neighbouring units.
#[pyfunction]
fn compose_index(
    py: Python<'_>,
    chunks: Vec<Bound<'_, ChunkIndex>>,
    breaks: Vec<bool>,
) -> PyResult<UnitIndex> {
    let chunks: Vec<&ChunkIndex> = chunks.iter().map(|c| c.get()).collect();
    compose(py, &chunks, breaks)
}

/// Adds `ChunkAnalyser`, `ChunkIndex` and `compose_index` to the module.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ChunkAnalyser>()?;
    m.add_class::<ChunkIndex>()?;
    m.add_function(wrap_pyfunction!(compose_index, m)?)?;
    Ok(())
}
