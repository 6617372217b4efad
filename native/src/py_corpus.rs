//! The PyO3 bindings of a corpus's document frequencies (`DocFreq`): the units holding each term over
//! the chunks of every source, summed from their analyses kept in Rust (`py_chunk.rs`'s `ChunkIndex`)
//! by the word table's term ids, as `TermStats.from_groups` counts them over the units' term counts
//! (the reference). A child module of `python.rs`, registered by `register`.

use std::sync::{OnceLock, PoisonError};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::py_chunk::ChunkIndex;
use super::TermTable;
use crate::scorer::FastMap;

/// Document frequencies over the units of several chunks (a corpus: each chunk once per source segment
/// that has its text), as `TermStats.from_groups` counts them; read like a `Counter` (`get`, `[]`).
#[pyclass(frozen, module = "cite_core._native", mapping)]
pub(super) struct DocFreq {
    table: Py<TermTable>,
    epoch: u64,
    /// the word table's id -> the entry of its term
    by_id: FastMap<u32, u32>,
    entries: Vec<(Py<PyString>, u32)>,
    /// term -> entry, built when the word table started over since (another epoch)
    by_text: OnceLock<FastMap<Box<str>, u32>>,
}

/// doc_freq(table, chunks) -> DocFreq | None: None when the chunks were analysed in different epochs
/// of the word table (it started over in between: their ids are not comparable).
#[pyfunction]
fn doc_freq(
    py: Python<'_>,
    table: Py<TermTable>,
    chunks: Vec<Bound<'_, ChunkIndex>>,
) -> Option<DocFreq> {
    let epoch = match chunks.first() {
        Some(c) => c.get().epoch,
        None => table.get().epoch(),
    };
    if chunks.iter().any(|c| c.get().epoch != epoch) {
        return None;
    }
    // room for every chunk's terms (the most there can be): the map is not rehashed as it grows
    let most: usize = chunks.iter().map(|c| c.get().terms.len()).sum();
    let mut by_id: FastMap<u32, u32> = FastMap::with_capacity_and_hasher(most, Default::default());
    let mut entries: Vec<(Py<PyString>, u32)> = Vec::with_capacity(most);
    for c in &chunks {
        let c = c.get();
        for ((&global, &df), term) in c.local.globals.iter().zip(&c.local.unit_df).zip(&c.terms) {
            let next = entries.len() as u32;
            let at = *by_id.entry(global).or_insert(next);
            if at == next {
                entries.push((term.clone_ref(py), df));
            } else {
                entries[at as usize].1 += df;
            }
        }
    }
    Some(DocFreq {
        table,
        epoch,
        by_id,
        entries,
        by_text: OnceLock::new(),
    })
}

#[pymethods]
impl DocFreq {
    /// get(term, default=None): the number of units holding `term`, else `default`.
    #[pyo3(signature = (term, default=None))]
    fn get(
        &self,
        py: Python<'_>,
        term: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
    ) -> Py<PyAny> {
        match self.find(py, term) {
            Some(df) => df
                .into_pyobject(py)
                .map_or_else(|_| py.None(), |v| v.into_any().unbind()),
            None => default.unwrap_or_else(|| py.None()),
        }
    }

    /// `Counter`'s `[]`: 0 for a term no unit holds.
    fn __getitem__(&self, py: Python<'_>, term: &Bound<'_, PyAny>) -> u32 {
        self.find(py, term).unwrap_or(0)
    }

    fn __contains__(&self, py: Python<'_>, term: &Bound<'_, PyAny>) -> bool {
        self.find(py, term).is_some()
    }

    fn __len__(&self) -> usize {
        self.entries.len()
    }

    /// items() -> list[tuple[str, int]]: every term with its frequency, in order of first occurrence.
    fn items<'py>(&self, py: Python<'py>) -> Vec<(Bound<'py, PyString>, u32)> {
        self.entries
            .iter()
            .map(|(t, df)| (t.bind(py).clone(), *df))
            .collect()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let keys = PyList::new(py, self.entries.iter().map(|(t, _)| t.bind(py)))?;
        Ok(keys.try_iter()?.into_any())
    }
}

impl DocFreq {
    /// The frequency of the word table's term `id` of epoch `epoch` (`Some(None)`: no unit holds it);
    /// None when these frequencies were summed in another epoch (ask `find`, by text).
    pub(super) fn by_id(&self, epoch: u64, id: u32) -> Option<Option<u32>> {
        (epoch == self.epoch).then(|| self.by_id.get(&id).map(|&at| self.entries[at as usize].1))
    }

    pub(super) fn find(&self, py: Python<'_>, term: &Bound<'_, PyAny>) -> Option<u32> {
        let text = term.cast::<PyString>().ok()?.to_str().ok()?;
        let table = self.table.get();
        let at = {
            let words = table.words.lock().unwrap_or_else(PoisonError::into_inner);
            if words.epoch == self.epoch {
                Some(
                    words
                        .ids
                        .get(text.as_bytes())
                        .and_then(|id| self.by_id.get(id))
                        .copied(),
                )
            } else {
                None
            }
        };
        let at = match at {
            Some(at) => at,
            None => self
                .by_text
                .get_or_init(|| {
                    self.entries
                        .iter()
                        .enumerate()
                        .map(|(i, (t, _))| {
                            (t.bind(py).to_str().unwrap_or_default().into(), i as u32)
                        })
                        .collect()
                })
                .get(text)
                .copied(),
        };
        at.map(|i| self.entries[i as usize].1)
    }
}

/// Adds `DocFreq` and `doc_freq` to the module.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DocFreq>()?;
    m.add_function(wrap_pyfunction!(doc_freq, m)?)?;
    Ok(())
}
