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

/// The units of one source: each unit's terms (ids, in order), each term's postings, and what a span
/// reads. Built by an `IndexBuilder`.
pub struct Index {
    vocab: FastMap<Box<str>, u32>,
    /// every unit's term ids one after another; unit i is `seq[starts[i]..starts[i + 1]]`
    seq: Vec<u32>,
    starts: Vec<u32>,
    /// term id -> [(unit, count)] in unit order: `post[post_starts[id]..post_starts[id + 1]]`
    post: Vec<(u32, u32)>,
    post_starts: Vec<u32>,
    segments: Vec<u32>,
    /// `breaks[i]`: a line break lies between unit i and unit i + 1
    breaks: Vec<bool>,
    fragments: Vec<bool>,
}

/// Where a claim is located: the span's first and last unit (None: nothing matches), and the best
/// `top` units of positive score in unit order (None when the claim has no term or there is no unit).
#[derive(Debug, PartialEq, Eq)]
pub struct Located {
    pub first: Option<usize>,
    pub last: Option<usize>,
    pub top: Option<Vec<usize>>,
}

/// What an `IndexBuilder` refuses: per-unit lists of different lengths, an unknown term id.
#[derive(Debug)]
pub struct Mismatch;

/// Collects the units of an index, in order: `intern` each term, `push` each unit's term ids.
pub struct IndexBuilder {
    vocab: FastMap<Box<str>, u32>,
    seq: Vec<u32>,
    starts: Vec<u32>,
    segments: Vec<u32>,
    breaks: Vec<bool>,
    fragments: Vec<bool>,
}

impl IndexBuilder {
    /// Units of these segments and fragment flags (one each), with line breaks between neighbours
    /// (one fewer than units; missing ones count as none).
    pub fn new(
        segments: Vec<u32>,
        breaks: Vec<bool>,
        fragments: Vec<bool>,
    ) -> Result<Self, Mismatch> {
        if segments.len() != fragments.len() || segments.len() > u32::MAX as usize {
            return Err(Mismatch);
        }
        Ok(IndexBuilder {
            vocab: FastMap::default(),
            seq: Vec::new(),
            starts: vec![0],
            segments,
            breaks,
            fragments,
        })
    }

    /// The id of a term.
    pub fn intern(&mut self, term: &str) -> u32 {
        let next = self.vocab.len() as u32;
        *self.vocab.entry(term.into()).or_insert(next)
    }

    /// The next unit's terms, as interned ids in order.
    pub fn push(&mut self, ids: &[u32]) -> Result<(), Mismatch> {
        let known = self.vocab.len() as u32;
        if self.starts.len() > self.segments.len() || ids.iter().any(|&id| id >= known) {
            return Err(Mismatch);
        }
        self.seq.extend_from_slice(ids);
        self.starts
            .push(u32::try_from(self.seq.len()).map_err(|_| Mismatch)?);
        Ok(())
    }

    /// The index, once every unit is pushed: postings counted from the units' terms.
    pub fn build(self) -> Result<Index, Mismatch> {
        let n = self.segments.len();
        if self.starts.len() != n + 1 {
            return Err(Mismatch);
        }
        // (id, unit, count) of each distinct term of each unit, units in order
        let mut entries: Vec<(u32, u32, u32)> = Vec::new();
        let mut sorted: Vec<u32> = Vec::new();
        for unit in 0..n {
            sorted.clear();
            sorted.extend_from_slice(
                &self.seq[self.starts[unit] as usize..self.starts[unit + 1] as usize],
            );
            sorted.sort_unstable();
            for run in sorted.chunk_by(|a, b| a == b) {
                entries.push((run[0], unit as u32, run.len() as u32));
            }
        }
        // counting sort by term id: each posting keeps unit order
        let vocab = self.vocab.len();
        let mut post_starts = vec![0u32; vocab + 1];
        for &(id, _, _) in &entries {
            post_starts[id as usize + 1] += 1;
        }
        for id in 0..vocab {
            post_starts[id + 1] += post_starts[id];
        }
        let mut fill = post_starts.clone();
        let mut post = vec![(0u32, 0u32); entries.len()];
        for (id, unit, count) in entries {
            let at = &mut fill[id as usize];
            post[*at as usize] = (unit, count);
            *at += 1;
        }
        Ok(Index {
            vocab: self.vocab,
            seq: self.seq,
            starts: self.starts,
            post,
            post_starts,
            segments: self.segments,
            breaks: self.breaks,
            fragments: self.fragments,
        })
    }
}

impl Index {
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The number of terms of every unit together (how long scoring may take).
    pub fn terms(&self) -> usize {
        self.seq.len()
    }

    /// The term ids of a unit, in order.
    pub fn unit(&self, unit: usize) -> &[u32] {
        &self.seq[self.starts[unit] as usize..self.starts[unit + 1] as usize]
    }

    fn length(&self, unit: usize) -> f64 {
        f64::from(self.starts[unit + 1] - self.starts[unit])
    }

    /// A term's id, when a unit holds it.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.vocab.get(term).copied()
    }

    fn posting(&self, id: Option<u32>) -> &[(u32, u32)] {
        id.map_or(&[], |id| {
            &self.post
                [self.post_starts[id as usize] as usize..self.post_starts[id as usize + 1] as usize]
        })
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
                let length = self.length(unit as usize);
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
                let norm = p.k1 * (1.0 - p.b + scale * self.length(unit));
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
        let mut position: FastMap<u32, usize> = FastMap::default();
        for (at, id) in claim.ids.iter().enumerate() {
            if let Some(id) = id {
                position.insert(*id, at);
            }
        }
        let pairs = &support.pairs;
        let mut paired = vec![false; pairs.len()];
        let mut have = vec![false; claim.ids.len()];
        let mut previous: Option<usize> = None;
        for &unit in units {
            for id in self.unit(unit) {
                let at = position.get(id).copied();
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
        let mut builder =
            IndexBuilder::new(vec![0; n], vec![false; n.saturating_sub(1)], vec![false; n])
                .unwrap();
        for terms in units {
            let mut ids = Vec::new();
            for &(term, count) in terms.iter() {
                let id = builder.intern(term);
                ids.extend(std::iter::repeat_n(id, count as usize));
            }
            builder.push(&ids).unwrap();
        }
        builder.build().unwrap()
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
        assert!(IndexBuilder::new(vec![], vec![], vec![false]).is_err());
        let mut one = IndexBuilder::new(vec![0], vec![], vec![false]).unwrap();
        assert!(one.push(&[0]).is_err()); // no term 0 interned
        let a = one.intern("a");
        one.push(&[a, a]).unwrap();
        assert!(one.push(&[a]).is_err()); // one unit only
        assert_eq!(one.build().unwrap().unit(0), &[a, a]);
        assert!(IndexBuilder::new(vec![0], vec![], vec![false])
            .unwrap()
            .build()
            .is_err());
    }
}
