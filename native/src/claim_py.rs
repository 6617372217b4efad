//! `ClaimSupport`: a claim as the support of its citations reads it, built once per claim, so that a
//! citation's support is one call (`ClaimSupport.support(index, units)`): the claim's distinct terms with
//! their idfs, its names, its `ClaimParts`, and the logistic's bias and weights (`logistic.rs`). A child
//! module of `py_scorer.rs`, which registers it and whose `UnitIndex` it reads.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::{ClaimParts, UnitIndex};
use crate::logistic::{logistic, python_sum};
use crate::scorer::Claim;
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
        let claim = Claim {
            ids: self.terms.iter().map(|t| index.id(t)).collect(),
            idfs: self.idfs.clone(),
            total: self.total,
        };
        let names: Vec<Option<u32>> = self.names.iter().map(|t| index.id(t)).collect();
        let features = index.features(&claim, &self.parts, &names, &units);
        logistic(self.bias, &self.coefficients, &features, self.compensated)
            .ok_or_else(|| PyOverflowError::new_err("math range error"))
    }
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
    m.add_function(wrap_pyfunction!(support_logistic, m)?)?;
    m.add_function(wrap_pyfunction!(python_float_sum, m)?)?;
    Ok(())
}
