//! `ClaimSupport`: a claim as the support of its citations reads it, built once per claim, so that a
//! citation's support is one call (`ClaimSupport.support(index, units)`): the claim's distinct terms with
//! their idfs, its names, its `ClaimParts`, and the logistic's bias and weights (`logistic.rs`); and
//! `weighted_claim`, an ASCII claim's terms, idfs and `ClaimSupport` in one call. A child module of
//! `py_scorer.rs`, which registers it and whose `UnitIndex`, `ClaimParts` and `claim` it reads.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use super::super::py_corpus::DocFreq;
use super::super::TermTable;
use super::{analyse, Analysed, ClaimParts, UnitIndex, DETACH_MIN_TERMS};
use crate::logistic::{logistic, python_sum};
use crate::scorer::{Claim, Index, Params};
use crate::support::SupportClaim;

/// ClaimSupport(weights, total, terms, names, bias, coefficients, compensated): `weights` (term, idf) of
/// the claim's distinct terms in order, `total` the sum of those idfs, `terms` its terms in order,
/// `names` the terms of its names; `bias` the logistic's bias with the claim family's, `coefficients` the
/// weights of the ten features, `compensated` whether the running Python's `sum()` compensates (3.12+).
#[pyclass(frozen, module = "cite_core._native")]
struct ClaimSupport {
    terms: Vec<Box<str>>,
    idfs: Vec<f64>,
    total: f64,
    names: Vec<Box<str>>,
    parts: SupportClaim,
    bias: f64,
    coefficients: [f64; 10],
    compensated: bool,
}

#[pymethods]
impl ClaimSupport {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        weights: Vec<(Bound<'_, PyString>, f64)>,
        total: f64,
        terms: &Bound<'_, PyAny>,
        names: &Bound<'_, PyAny>,
        bias: f64,
        coefficients: [f64; 10],
        compensated: bool,
    ) -> PyResult<Self> {
        let mut texts = Vec::with_capacity(weights.len());
        let mut idfs = Vec::with_capacity(weights.len());
        for (term, idf) in &weights {
            texts.push(Box::from(term.to_str()?));
            idfs.push(*idf);
        }
        let mut name_texts = Vec::new();
        for name in names.try_iter()? {
            name_texts.push(Box::from(name?.cast::<PyString>()?.to_str()?));
        }
        let parts = ClaimParts::new(py, weights, terms)?.parts;
        Ok(ClaimSupport {
            terms: texts,
            idfs,
            total,
            names: name_texts,
            parts,
            bias,
            coefficients,
            compensated,
        })
    }

    /// support(index, units) -> float: `scoring.support` of the claim and the terms of `units` of
    /// `index` read in that order (the source being the index), before rounding.
    fn support(&self, index: &UnitIndex, units: Vec<usize>) -> PyResult<f64> {
        let index = &index.index;
        if units.iter().any(|&unit| unit >= index.len()) {
            return Err(PyValueError::new_err(
                "ClaimSupport.support: a unit out of range",
            ));
        }
        self.score(index, &self.claim(index), &units)
    }

    /// cite(index, avg_len, params, verbatim, best) -> (first, last, support): `UnitIndex.locate` of the
    /// claim (`params` and `verbatim` as there), then `support` of the cited units (those of the first
    /// segment when none was located) and, with `best`, the better of that and the support of the best
    /// units read together (`scorer.located_support`), before rounding; 0.0 for a claim without terms.
    fn cite(
        &self,
        py: Python<'_>,
        index: &UnitIndex,
        avg_len: f64,
        params: (f64, f64, f64, f64, f64, usize, usize, usize),
        verbatim: &Bound<'_, PyAny>,
        best: bool,
    ) -> PyResult<(Option<usize>, Option<usize>, f64)> {
        let index = &index.index;
        let claim = self.claim(index);
        let p = Params::from(params);
        let scored = if index.terms() >= DETACH_MIN_TERMS {
            py.detach(|| index.score(&claim, avg_len, &p))
        } else {
            index.score(&claim, avg_len, &p)
        };
        let located = index.locate(&claim, &scored, &p, |unit| {
            verbatim.call1((unit,))?.extract::<i64>()
        })?;
        if self.terms.is_empty() {
            return Ok((located.first, located.last, 0.0));
        }
        let cited: Vec<usize> = match (located.first, located.last) {
            (Some(first), Some(last)) => (first..=last).collect(),
            _ => (0..index.len())
                .filter(|&unit| index.segments[unit] == 0)
                .collect(),
        };
        let mut score = self.score(index, &claim, &cited)?;
        if let (true, Some(top)) = (best, &located.top) {
            let other = self.score(index, &claim, top)?;
            if other > score {
                score = other; // max(score, other) as Python's max keeps the first of equals
            }
        }
        Ok((located.first, located.last, score))
    }
}

impl ClaimSupport {
    /// The claim as `index` reads it: its distinct terms as the index's ids.
    fn claim(&self, index: &Index) -> Claim {
        Claim {
            ids: self.terms.iter().map(|t| index.id(t)).collect(),
            idfs: self.idfs.clone(),
            total: self.total,
        }
    }

    /// The logistic of the support features of `units` (in range).
    fn score(&self, index: &Index, claim: &Claim, units: &[usize]) -> PyResult<f64> {
        let names: Vec<Option<u32>> = self.names.iter().map(|t| index.id(t)).collect();
        let features = index.features(claim, &self.parts, &names, units);
        logistic(self.bias, &self.coefficients, &features, self.compensated)
            .ok_or_else(|| PyOverflowError::new_err("math range error"))
    }
}

/// (terms, weights, total, names, support) of `weighted_claim`.
type WeightedClaim<'py> = (
    Bound<'py, PyTuple>,
    Bound<'py, PyTuple>,
    f64,
    Bound<'py, PyTuple>,
    ClaimSupport,
);

/// weighted_claim(table, text, df, units, bias, coefficients, compensated) -> (terms, weights, total,
/// names, support) | None: `ClaimTerms.from_text` of an ASCII claim in one call: its terms and names
/// through the table (`TermTable.claim`), each distinct term's idf over `units` units from its document
/// frequency in `df` (`TermStats`: `log(1 + (units - df + 0.5) / (df + 0.5))`, the C library's `log`
/// as `math.log` calls it), the idfs summed in order from 0.0, and its `ClaimSupport`. `df` is a dict or
/// the `DocFreq` summed in Rust. None for a text that is not ASCII, or another mapping (Python analyses
/// it).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn weighted_claim<'py>(
    py: Python<'py>,
    table: &TermTable,
    text: &str,
    df: &Bound<'py, PyAny>,
    units: i64,
    bias: f64,
    coefficients: [f64; 10],
    compensated: bool,
) -> PyResult<Option<WeightedClaim<'py>>> {
    let Some(found) = analyse(table, py, text) else {
        return Ok(None);
    };
    let plain = df.cast::<PyDict>().ok();
    let summed = df.cast::<DocFreq>().ok();
    let mut idfs: Vec<f64> = Vec::with_capacity(found.distinct.len());
    let mut total = 0.0;
    for (id, term) in &found.distinct {
        let frequency = if let Some(plain) = plain {
            match plain.get_item(term.bind(py))? {
                Some(found) => found.extract::<i64>()?,
                None => 0,
            }
        } else if let Some(summed) = summed {
            // the frequencies summed in Rust over the chunks' analyses (py_corpus.rs): by the term's
            // id in the word table when they were summed in the same epoch, else by its text
            let summed = summed.get();
            let frequency = match summed.by_id(found.epoch, *id) {
                Some(frequency) => frequency,
                None => summed.find(py, term.bind(py).as_any()),
            };
            i64::from(frequency.unwrap_or(0))
        } else {
            return Ok(None); // another mapping: Python reads it through its own get
        };
        let idf = (1.0 + ((units - frequency) as f64 + 0.5) / (frequency as f64 + 0.5)).ln();
        total += idf;
        idfs.push(idf);
    }
    let pairs = PyTuple::new(
        py,
        found
            .distinct
            .iter()
            .zip(&idfs)
            .map(|((_, term), idf)| (term.bind(py), *idf)),
    )?;
    let support = ascii_support(py, &found, idfs, total)?;
    let support = ClaimSupport {
        bias,
        coefficients,
        compensated,
        ..support
    };
    let names = PyTuple::new(py, found.names.into_iter().map(|d| d.1))?;
    let terms = PyTuple::new(py, found.terms.into_iter().map(|d| d.1))?;
    Ok(Some((terms, pairs, total, names, support)))
}

/// The `ClaimSupport` of an ASCII claim from its analysis (bias and weights left at 0 for the caller):
/// `ClaimParts` with each term's position among the distinct terms found by its id (one id per term
/// text: two words of one stem, "bridges" and "bridge", give one); a number starts with an ASCII digit.
fn ascii_support(
    py: Python<'_>,
    found: &Analysed,
    idfs: Vec<f64>,
    total: f64,
) -> PyResult<ClaimSupport> {
    let distinct = &found.distinct;
    let mut texts: Vec<&str> = Vec::with_capacity(distinct.len());
    for (_, term) in distinct {
        texts.push(term.bind(py).to_str()?);
    }
    let mut seq = Vec::with_capacity(found.terms.len());
    for (id, _) in &found.terms {
        match distinct.iter().position(|d| d.0 == *id) {
            Some(at) => seq.push(at),
            None => {
                return Err(PyValueError::new_err(
                    "weighted_claim: a term without a weight",
                ))
            }
        }
    }
    let numbers = (0..texts.len())
        .filter(|&at| texts[at].as_bytes().first().is_some_and(u8::is_ascii_digit))
        .collect();
    // highest idf first, ties by term (as ClaimParts)
    let mut rare: Vec<usize> = (0..texts.len()).collect();
    rare.sort_by(|&a, &b| {
        idfs[b]
            .total_cmp(&idfs[a])
            .then_with(|| texts[a].cmp(texts[b]))
    });
    rare.truncate((texts.len() / 3).max(1));
    let mut name_texts = Vec::with_capacity(found.names.len());
    for (_, name) in &found.names {
        name_texts.push(Box::from(name.bind(py).to_str()?));
    }
    Ok(ClaimSupport {
        terms: texts.iter().map(|&t| Box::from(t)).collect(),
        idfs,
        total,
        names: name_texts,
        parts: SupportClaim::new(&seq, numbers, rare),
        bias: 0.0,
        coefficients: [0.0; 10],
        compensated: false,
    })
}

/// logistic(bias, coefficients, features, compensated) -> float: `1 / (1 + exp(-z))` with `z` the bias
/// plus the weighted features summed as the running Python's `sum()` does (`logistic.rs`; for tests).
#[pyfunction]
fn support_logistic(
    bias: f64,
    coefficients: Vec<f64>,
    features: Vec<f64>,
    compensated: bool,
) -> PyResult<f64> {
    logistic(bias, &coefficients, &features, compensated)
        .ok_or_else(|| PyOverflowError::new_err("math range error"))
}

/// python_sum(values, compensated) -> float: `sum(values)` of CPython before 3.12 or from 3.12 on.
#[pyfunction]
fn python_float_sum(values: Vec<f64>, compensated: bool) -> f64 {
    python_sum(&values, compensated)
}

/// Adds `ClaimSupport` and its functions to the module.
pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ClaimSupport>()?;
    m.add_function(wrap_pyfunction!(weighted_claim, m)?)?;
    m.add_function(wrap_pyfunction!(support_logistic, m)?)?;
    m.add_function(wrap_pyfunction!(python_float_sum, m)?)?;
    Ok(())
}
