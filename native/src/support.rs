//! The support features of cited units (`scoring.support_features`, which stays the reference), over a
//! source's `Index`: how much of a claim's terms, term pairs, numbers and rarest terms the cited units
//! hold, and whether its names and numbers occur in the source at all. Shares are integer divisions and
//! sums run in the claim's order, as in Python, so the features are the same to the last bit.
#![forbid(unsafe_code)]

use crate::scorer::{Claim, Index};

/// What `support_features` reads of a claim besides its weights, built once per claim: its distinct
/// adjacent term pairs, its numbers and its rarest terms (positions in the claim's weights).
pub struct SupportClaim {
    pairs: Vec<(usize, usize)>,
    numbers: Vec<usize>,
    rare: Vec<usize>,
}

impl SupportClaim {
    /// From the claim's terms in order, its numbers and its rarest terms, as positions in its weights.
    pub fn new(seq: &[usize], numbers: Vec<usize>, rare: Vec<usize>) -> Self {
        let mut pairs: Vec<(usize, usize)> = seq.windows(2).map(|w| (w[0], w[1])).collect();
        pairs.sort_unstable();
        pairs.dedup();
        SupportClaim {
            pairs,
            numbers,
            rare,
        }
    }
}

impl Index {
    /// `scoring.support_features` of a claim (`names`: the ids of its names, None for one nowhere in
    /// the source) and the terms of `units` read one after another (in the given order: adjacent pairs
    /// run across units), the whole source being this index. A position of `support` outside the
    /// claim's weights counts as a term the cited units lack.
    pub fn features(
        &self,
        claim: &Claim,
        support: &SupportClaim,
        names: &[Option<u32>],
        units: &[usize],
    ) -> [f64; 10] {
        // each claim term's position by its id, sorted for a binary search (a claim has a few dozen
        // terms: cheaper than hashing them); of one id given twice, the last position, as a map's insert
        let mut position: Vec<(u32, usize)> = claim
            .ids
            .iter()
            .enumerate()
            .filter_map(|(at, id)| id.map(|id| (id, at)))
            .collect();
        position.sort_unstable_by_key(|&(id, at)| (id, std::cmp::Reverse(at)));
        position.dedup_by_key(|entry| entry.0);
        let pairs = &support.pairs;
        let mut paired = vec![false; pairs.len()];
        let mut have = vec![false; claim.ids.len()];
        let mut previous: Option<usize> = None;
        for &unit in units {
            for id in self.unit(unit) {
                let at = position
                    .binary_search_by_key(id, |entry| entry.0)
                    .ok()
                    .map(|k| position[k].1);
                if let Some(at) = at {
                    have[at] = true;
                    if let Some(before) = previous {
                        if let Ok(k) = pairs.binary_search(&(before, at)) {
                            paired[k] = true;
                        }
                    }
                }
                previous = at;
            }
        }
        let mut found_idf = 0.0;
        let mut found = 0usize;
        for (at, &idf) in claim.idfs.iter().enumerate() {
            if have[at] {
                found_idf += idf;
                found += 1;
            }
        }
        let share_of = |part: usize, whole: usize| part as f64 / whole as f64;
        let cov = if claim.total != 0.0 {
            found_idf / claim.total
        } else {
            0.0
        };
        let pair_share = if pairs.is_empty() {
            cov
        } else {
            share_of(paired.iter().filter(|&&p| p).count(), pairs.len())
        };
        let numbers = &support.numbers;
        let missing = if numbers.is_empty() {
            0.0
        } else {
            share_of(
                numbers.iter().filter(|&&at| !have[at]).count(),
                numbers.len(),
            )
        };
        let distinct = claim.ids.len();
        let share = if distinct == 0 {
            0.0
        } else {
            share_of(found, distinct)
        };
        let rare = &support.rare;
        let rare_missing = if rare.is_empty() {
            0.0
        } else {
            share_of(
                rare.iter()
                    .filter(|&&at| !have.get(at).copied().unwrap_or(false))
                    .count(),
                rare.len(),
            )
        };
        let names_absent = if names.is_empty() {
            0.0
        } else {
            share_of(names.iter().filter(|id| id.is_none()).count(), names.len())
        };
        let numbers_absent = if numbers.is_empty() {
            0.0
        } else {
            share_of(
                numbers
                    .iter()
                    .filter(|&&at| claim.ids[at].is_none())
                    .count(),
                numbers.len(),
            )
        };
        [
            cov,
            pair_share,
            missing,
            (distinct as f64).ln_1p(),
            share,
            ((distinct - found) as f64).ln_1p(),
            rare_missing,
            names_absent,
            numbers_absent,
            if names.is_empty() { 0.0 } else { 1.0 },
        ]
    }
}
