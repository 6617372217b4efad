//! Picking the span a claim cites from its scores: the Rust port of `cite_core/_locate/span.py` (the
//! reference). `score` gives BM25 of every unit (of its candidates for a long source), `pick` the best
//! unit (fragments weighted; ties to a sentence, then to more of the claim's words as written, then to
//! the first), `extend` the neighbours that add coverage, `top` the best units read together.
#![forbid(unsafe_code)]

use crate::scorer::{Claim, Index, Params};

/// Where a claim is located: the span's first and last unit (None: nothing matches), and the best
/// `top` units of positive score in unit order (None when the claim has no term or there is no unit).
#[derive(Debug, PartialEq, Eq)]
pub struct Located {
    pub first: Option<usize>,
    pub last: Option<usize>,
    pub top: Option<Vec<usize>>,
}

/// A claim's scores: over every unit, or over `units` (its candidates).
pub struct Scored {
    pub units: Option<Vec<usize>>,
    pub scores: Vec<f64>,
}

impl Index {
    fn holds_term(&self, claim: &Claim, unit: usize) -> bool {
        claim.ids.iter().any(|&id| self.count(id, unit).is_some())
    }

    /// `scoring.coverage` of the terms of units `lo..=hi`.
    fn coverage(&self, claim: &Claim, lo: usize, hi: usize) -> f64 {
        if claim.total == 0.0 {
            return 0.0;
        }
        let mut found = 0.0;
        for (&id, &idf) in claim.ids.iter().zip(&claim.idfs) {
            let posting = self.posting(id);
            let at = posting.partition_point(|&(u, _)| (u as usize) < lo);
            if posting.get(at).is_some_and(|&(u, _)| u as usize <= hi) {
                found += idf;
            }
        }
        found / claim.total
    }

    /// `span.extend`: the span of `best` with the neighbours that add `extend_gain` of coverage.
    pub fn extend(&self, claim: &Claim, best: usize, p: &Params) -> (usize, usize) {
        let (mut first, mut last) = (best, best);
        let mut base = self.coverage(claim, best, best);
        for neighbour in [best.wrapping_sub(1), best + 1] {
            if neighbour < self.len()
                && (p.extend_gain <= 0.0 || self.holds_term(claim, neighbour))
                && self.segments[neighbour] == self.segments[best]
                && !self
                    .breaks
                    .get(best.min(neighbour))
                    .copied()
                    .unwrap_or(false)
            {
                let (lo, hi) = (first.min(neighbour), last.max(neighbour));
                let gain = self.coverage(claim, lo, hi) - base;
                if gain >= p.extend_gain {
                    (first, last, base) = (lo, hi, base + gain);
                }
            }
        }
        (first, last)
    }

    /// `span.pick` among `units` with their `scores`: the position (in `units`) of the best, fragments
    /// weighted; ties go to a sentence, then to more `verbatim` words, then to the first.
    pub fn pick<E>(
        &self,
        units: &[usize],
        scores: &[f64],
        p: &Params,
        mut verbatim: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<usize, E> {
        let fragment = |at: usize| self.fragments[units[at]];
        let weighted: Vec<f64> = scores
            .iter()
            .enumerate()
            .map(|(at, &s)| {
                if fragment(at) && s > 0.0 {
                    s * p.fragment_weight
                } else {
                    s
                }
            })
            .collect();
        let top = weighted.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let floor = top - top.abs() * p.tie;
        let tied: Vec<usize> = (0..weighted.len())
            .filter(|&at| weighted[at] >= floor)
            .collect();
        if tied.len() == 1 {
            return Ok(tied[0]);
        }
        let mut best: Option<(bool, i64, usize)> = None;
        for at in tied {
            let key = (fragment(at), -verbatim(units[at])?, at);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        Ok(best.map_or(0, |b| b.2))
    }

    /// The scores of a claim: of every unit (a list over `0..len`), or of its candidates only for a
    /// source of more than `long` units (`units` then lists them).
    pub fn score(&self, claim: &Claim, avg_len: f64, p: &Params) -> Scored {
        if self.len() > p.long {
            let units = self.candidates(claim, p.cap);
            let scores = self.bm25_of(claim, avg_len, &units, p);
            Scored {
                units: Some(units),
                scores,
            }
        } else {
            Scored {
                units: None,
                scores: self.bm25(claim, avg_len, p),
            }
        }
    }

    /// `span.locate`: the span a claim cites and the best `top` units, from its scores.
    pub fn locate<E>(
        &self,
        claim: &Claim,
        scored: &Scored,
        p: &Params,
        verbatim: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<Located, E> {
        if self.is_empty() || claim.ids.is_empty() {
            return Ok(Located {
                first: None,
                last: None,
                top: None,
            });
        }
        let all: Vec<usize>;
        let units = match &scored.units {
            Some(units) => units.as_slice(),
            None => {
                all = (0..self.len()).collect();
                &all
            }
        };
        let top = Some(self.top(units, &scored.scores, p.top));
        if units.is_empty()
            || scored
                .scores
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max)
                <= 0.0
        {
            return Ok(Located {
                first: None,
                last: None,
                top,
            });
        }
        let best = units[self.pick(units, &scored.scores, p, verbatim)?];
        let (first, last) = self.extend(claim, best, p);
        Ok(Located {
            first: Some(first),
            last: Some(last),
            top,
        })
    }

    /// The best `n` of `units` by score (ties: the first), of positive score only, in unit order.
    fn top(&self, units: &[usize], scores: &[f64], n: usize) -> Vec<usize> {
        let mut ranked: Vec<(usize, f64)> = units
            .iter()
            .zip(scores)
            .filter(|(_, &s)| s > 0.0)
            .map(|(&u, &s)| (u, s))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1)); // stable: ties keep unit order
        let mut top: Vec<usize> = ranked.into_iter().take(n).map(|(u, _)| u).collect();
        top.sort_unstable();
        top
    }
}
