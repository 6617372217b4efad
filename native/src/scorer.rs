//! Scoring and localisation: the Rust port of `cite_core/_locate/span.py` over the units of one
//! source (which stays the reference). An `Index` holds each term's postings (the units holding it, with
//! its count there, in unit order) and what a span may take in (each unit's segment, whether a line
//! break lies between two neighbours, whether a unit is a fragment). `locate` scores a claim's terms
//! against it (BM25), picks the best unit and extends it to the neighbours that add coverage.
//!
//! Every float is computed as Python computes it: each unit's BM25 sum runs over the claim's terms in
//! their order, starting from 0.0, with the same expression; coverage sums idfs in that order too. So
//! the scores, and the spans picked from them, are the same to the last bit.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a (terms are short; see python.rs for why not SipHash).
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// The constants of `span.py` and `scoring.py`.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub k1: f64,
    pub b: f64,
    pub extend_gain: f64,
    pub fragment_weight: f64,
    pub tie: f64,
    /// sources of more units than this are scored through their candidates only...
    pub long: usize,
    /// ...at most this many
    pub cap: usize,
    /// how many best units `top` returns
    pub top: usize,
}

/// A claim as the index reads it: its distinct terms in order (None: a term no unit holds) with idfs.
pub struct Claim {
    pub ids: Vec<Option<u32>>,
    pub idfs: Vec<f64>,
    pub total: f64,
}

/// The units of one source: postings by term id, and what a span reads.
pub struct Index {
    vocab: FastMap<Box<str>, u32>,
    /// term id -> [(unit, count)] in unit order
    postings: Vec<Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    segments: Vec<u32>,
    /// `breaks[i]`: a line break lies between unit i and unit i + 1
    breaks: Vec<bool>,
    fragments: Vec<bool>,
    terms: usize,
}

/// Where a claim is located: the span's first and last unit (None: nothing matches), and the best
/// `top` units of positive score in unit order (None when the claim has no term or there is no unit).
#[derive(Debug, PartialEq, Eq)]
pub struct Located {
    pub first: Option<usize>,
    pub last: Option<usize>,
    pub top: Option<Vec<usize>>,
}

/// What `Index::new` refuses: per-unit lists of different lengths.
#[derive(Debug)]
pub struct Mismatch;

impl Index {
    /// An index of units without terms yet (`add` gives them), with their lengths, segments, line
    /// breaks between neighbours (one fewer than units; missing ones count as none) and fragment flags.
    pub fn new(
        lengths: Vec<u32>,
        segments: Vec<u32>,
        breaks: Vec<bool>,
        fragments: Vec<bool>,
    ) -> Result<Self, Mismatch> {
        let n = lengths.len();
        if segments.len() != n || fragments.len() != n {
            return Err(Mismatch);
        }
        Ok(Index {
            vocab: FastMap::default(),
            postings: Vec::new(),
            lengths,
            segments,
            breaks,
            fragments,
            terms: 0,
        })
    }

    /// Unit `unit` holds `term` `count` times: units come in order (a unit before an earlier one is
    /// refused); a term given twice for one unit adds up.
    pub fn add(&mut self, unit: usize, term: &str, count: u32) -> Result<(), Mismatch> {
        if unit >= self.len() {
            return Err(Mismatch);
        }
        let next = self.postings.len() as u32;
        let id = *self.vocab.entry(term.into()).or_insert(next);
        if id == next {
            self.postings.push(Vec::new());
        }
        let posting = &mut self.postings[id as usize];
        match posting.last_mut() {
            Some(last) if last.0 as usize > unit => return Err(Mismatch),
            Some(last) if last.0 as usize == unit => last.1 = last.1.saturating_add(count),
            _ => posting.push((unit as u32, count)),
        }
        self.terms = self.terms.saturating_add(count as usize);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The number of terms of every unit together (how long scoring may take).
    pub fn terms(&self) -> usize {
        self.terms
    }

    /// A term's id, when a unit holds it.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.vocab.get(term).copied()
    }

    fn posting(&self, id: Option<u32>) -> &[(u32, u32)] {
        id.map_or(&[], |id| &self.postings[id as usize])
    }

    fn count(&self, id: Option<u32>, unit: usize) -> Option<u32> {
        let posting = self.posting(id);
        posting
            .binary_search_by_key(&(unit as u32), |&(u, _)| u)
            .ok()
            .map(|at| posting[at].1)
    }

    /// `scoring.bm25`: each unit's score, summed over the claim's terms in order.
    pub fn bm25(&self, claim: &Claim, avg_len: f64, p: &Params) -> Vec<f64> {
        let scale = if avg_len != 0.0 { p.b / avg_len } else { 0.0 };
        let k1_plus_1 = p.k1 + 1.0;
        let mut scores = vec![0.0; self.len()];
        for (&id, &idf) in claim.ids.iter().zip(&claim.idfs) {
            for &(unit, f) in self.posting(id) {
                let f = f64::from(f);
                let length = f64::from(self.lengths[unit as usize]);
                scores[unit as usize] +=
                    idf * f * k1_plus_1 / (f + p.k1 * (1.0 - p.b + scale * length));
            }
        }
        scores
    }

    /// `candidates.candidates`: at most `cap` units holding a claim term, rarest terms first, in
    /// unit order.
    pub fn candidates(&self, claim: &Claim, cap: usize) -> Vec<usize> {
        let mut postings: Vec<&[(u32, u32)]> = claim
            .ids
            .iter()
            .map(|&id| self.posting(id))
            .filter(|p| !p.is_empty())
            .collect();
        postings.sort_by_key(|p| p.len()); // stable, as Python's sort
        let mut seen = vec![false; self.len()];
        let mut found = Vec::new();
        'terms: for posting in postings {
            for &(unit, _) in posting {
                if !seen[unit as usize] {
                    seen[unit as usize] = true;
                    found.push(unit as usize);
                }
                if found.len() >= cap {
                    break 'terms;
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// `candidates.bm25_of`: the BM25 score of each of `units`.
    pub fn bm25_of(&self, claim: &Claim, avg_len: f64, units: &[usize], p: &Params) -> Vec<f64> {
        let scale = if avg_len != 0.0 { p.b / avg_len } else { 0.0 };
        let k1_plus_1 = p.k1 + 1.0;
        units
            .iter()
            .map(|&unit| {
                let norm = p.k1 * (1.0 - p.b + scale * f64::from(self.lengths[unit]));
                let mut score = 0.0;
                for (&id, &idf) in claim.ids.iter().zip(&claim.idfs) {
                    if let Some(f) = self.count(id, unit) {
                        let f = f64::from(f);
                        score += idf * f * k1_plus_1 / (f + norm);
                    }
                }
                score
            })
            .collect()
    }

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

/// A claim's scores: over every unit, or over `units` (its candidates).
pub struct Scored {
    pub units: Option<Vec<usize>>,
    pub scores: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Params = Params {
        k1: 1.2,
        b: 0.2,
        extend_gain: 0.2,
        fragment_weight: 0.8,
        tie: 1e-9,
        long: 256,
        cap: 256,
        top: 5,
    };

    fn index(units: &[&[(&str, u32)]]) -> Index {
        let n = units.len();
        let lengths = units.iter().map(|u| u.iter().map(|t| t.1).sum()).collect();
        let mut ix = Index::new(
            lengths,
            vec![0; n],
            vec![false; n.saturating_sub(1)],
            vec![false; n],
        )
        .unwrap();
        for (unit, terms) in units.iter().enumerate() {
            for &(term, count) in terms.iter() {
                ix.add(unit, term, count).unwrap();
            }
        }
        ix
    }

    fn claim(index: &Index, terms: &[(&str, f64)]) -> Claim {
        let idfs: Vec<f64> = terms.iter().map(|t| t.1).collect();
        Claim {
            ids: terms.iter().map(|t| index.id(t.0)).collect(),
            total: idfs.iter().fold(0.0, |a, b| a + b),
            idfs,
        }
    }

    #[test]
    fn locates_the_unit_holding_the_claim_and_extends_to_a_neighbour() {
        let ix = index(&[
            &[("sky", 1)],
            &[("grass", 2), ("green", 1)],
            &[("rain", 1)],
            &[("sun", 1)],
        ]);
        let c = claim(&ix, &[("grass", 1.0), ("green", 1.0), ("rain", 1.0)]);
        let scored = ix.score(&c, 1.25, &P);
        assert_eq!(scored.scores[0], 0.0);
        let located = ix.locate(&c, &scored, &P, |_| Ok::<i64, ()>(0)).unwrap();
        assert_eq!(located.first, Some(1));
        assert_eq!(located.last, Some(2));
        assert_eq!(located.top, Some(vec![1, 2]));
        assert_eq!(ix.terms(), 6);
    }

    #[test]
    fn candidates_take_the_rarest_terms_first_and_score_as_every_unit() {
        let ix = index(&[&[("a", 1)], &[("a", 1), ("b", 1)], &[("a", 1)], &[("c", 1)]]);
        let c = claim(&ix, &[("a", 0.5), ("b", 2.0), ("zzz", 1.0)]);
        assert_eq!(ix.candidates(&c, 1), vec![1]);
        assert_eq!(ix.candidates(&c, 2), vec![0, 1]);
        let all = ix.bm25(&c, 1.25, &P);
        assert_eq!(ix.bm25_of(&c, 1.25, &[0, 1, 2, 3], &P), all);
    }

    #[test]
    fn nothing_matching_gives_no_span_and_mismatched_lists_are_refused() {
        let ix = index(&[&[("a", 1)]]);
        let c = claim(&ix, &[("b", 1.0)]);
        let located = ix
            .locate(&c, &ix.score(&c, 1.0, &P), &P, |_| Ok::<i64, ()>(0))
            .unwrap();
        assert_eq!(
            located,
            Located {
                first: None,
                last: None,
                top: Some(vec![])
            }
        );
        assert!(Index::new(vec![1], vec![], vec![], vec![false]).is_err());
        let mut two = index(&[&[("a", 1)], &[("a", 1)]]);
        assert!(two.add(0, "a", 1).is_err() && two.add(2, "b", 1).is_err());
    }
}
