//! The support logistic (`scoring.support_of`, which stays the reference) computed as CPython computes
//! it: the weighted features added by the running interpreter's `sum()` (one addition at a time before
//! CPython 3.12; from 3.12 on with Neumaier's compensation, as `Python/bltinmodule.c` does it), the
//! bias added to that sum, then `1 / (1 + exp(-z))` through the C library's `exp` as `math.exp` calls
//! it. So the support is the same to the last bit; rounding it to four places stays in Python.
#![forbid(unsafe_code)]

/// `sum(values)` of CPython for floats from the start value `0` (an int): the first value added to
/// `0` (`0 + -0.0` is `0.0`), then each one in turn; `compensated` (CPython 3.12 and later) keeps the
/// running error of each addition and adds it once at the end when it is non-zero and finite.
pub fn python_sum(values: &[f64], compensated: bool) -> f64 {
    let Some((&first, rest)) = values.split_first() else {
        return 0.0;
    };
    let mut sum = 0.0 + first;
    if !compensated {
        for &x in rest {
            sum += x;
        }
        return sum;
    }
    let mut c = 0.0;
    for &x in rest {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    if c != 0.0 && c.is_finite() {
        sum += c;
    }
    sum
}

/// `1 / (1 + exp(-z))` with `z = bias + sum(coefficients[i] * features[i])` (`python_sum`); None where
/// `math.exp` would raise OverflowError (a finite `-z` whose exponential is not).
pub fn logistic(
    bias: f64,
    coefficients: &[f64],
    features: &[f64],
    compensated: bool,
) -> Option<f64> {
    let products: Vec<f64> = coefficients
        .iter()
        .zip(features)
        .map(|(w, f)| w * f)
        .collect();
    let z = bias + python_sum(&products, compensated);
    let e = (-z).exp();
    if e.is_infinite() && z.is_finite() {
        return None;
    }
    Some(1.0 / (1.0 + e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_sum_adds_in_order() {
        assert_eq!(python_sum(&[], false), 0.0);
        assert_eq!(python_sum(&[0.1, 0.2, 0.3], false), (0.1 + 0.2) + 0.3);
        assert!(python_sum(&[-0.0], false).is_sign_positive()); // 0 + -0.0
    }

    #[test]
    fn compensated_sum_recovers_what_plain_addition_loses() {
        let values = [1e16, 1.0, -1e16];
        assert_eq!(python_sum(&values, false), 0.0);
        assert_eq!(python_sum(&values, true), 1.0);
        assert_eq!(python_sum(&[0.1; 10], true), 1.0);
        assert_eq!(python_sum(&[0.1; 10], false), 0.9999999999999999);
    }

    #[test]
    fn logistic_of_zero_is_a_half_and_overflow_is_refused() {
        assert_eq!(logistic(0.0, &[1.0], &[0.0], false), Some(0.5));
        assert_eq!(logistic(-1000.0, &[], &[], true), None);
        assert_eq!(logistic(1000.0, &[], &[], true), Some(1.0));
    }
}
