//! Scoring: the units of one source as the Rust port of `cite_core/_locate/span.py` and
//! `scoring.support_features` reads them (the Python stays the reference). An `Index` holds each unit's
//! term ids in order, each term's postings (the units holding it, with its count there, in unit order)
//! and what a span may take in (each unit's segment, whether a line break lies between two neighbours,
//! whether a unit is a fragment); here BM25 and the candidates of a long source, in `span.rs` the pick
//! of the cited span (`Index::locate`), in `support.rs` the support features.
//!
//! Every float is computed as Python computes it: each unit's BM25 sum runs over the claim's terms in
//! their order, starting from 0.0, with the same expression; coverage sums idfs in that order too. So
//! the scores, and the spans picked from them, are the same to the last bit.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::vocab::Vocab;

/// FNV-1a for the maps of terms here and of words in python.rs's `TermTable`: terms are short, and
/// SipHash (the default, proof against hash flooding) cost a third of the time there. Flooding needs many
/// distinct words colliding; the word table is bounded by `max_words` and starts over, and a source's
/// terms are bounded by its text, so the worst case stays bounded per chunk.
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

impl From<(f64, f64, f64, f64, f64, usize, usize, usize)> for Params {
    /// The parameters as the Python scorer passes them: `(k1, b, extend_gain, fragment_weight, tie,
    /// long, cap, top)`.
    fn from(params: (f64, f64, f64, f64, f64, usize, usize, usize)) -> Self {
        let (k1, b, extend_gain, fragment_weight, tie, long, cap, top) = params;
        Params {
            k1,
            b,
            extend_gain,
            fragment_weight,
            tie,
            long,
            cap,
            top,
        }
    }
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
    vocab: Vocab,
    /// every unit's term ids one after another; unit i is `seq[starts[i]..starts[i + 1]]`
    seq: Vec<u32>,
    starts: Vec<u32>,
    /// term id -> [(unit, count)] in unit order: `post[post_starts[id]..post_starts[id + 1]]`
    post: Vec<(u32, u32)>,
    post_starts: Vec<u32>,
    pub(crate) segments: Vec<u32>,
    /// `breaks[i]`: a line break lies between unit i and unit i + 1
    pub(crate) breaks: Vec<bool>,
    pub(crate) fragments: Vec<bool>,
}

/// What an `IndexBuilder` refuses: per-unit lists of different lengths, an unknown term id.
#[derive(Debug)]
pub struct Mismatch;

/// Collects the units of an index, in order: `intern` each term, `push` each unit's term ids.
pub struct IndexBuilder {
    vocab: Vocab,
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
            vocab: Vocab::default(),
            seq: Vec::new(),
            starts: vec![0],
            segments,
            breaks,
            fragments,
        })
    }

    /// Room for this many more distinct terms (a caller that knows them saves the map's regrowth).
    pub fn reserve(&mut self, terms: usize) {
        self.vocab.reserve(terms);
    }

    /// The id of a term.
    pub fn intern(&mut self, term: &str) -> u32 {
        self.vocab.intern(term)
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
        // each term's posting in unit order, in two passes over the units' ids without sorting them:
        // the units holding each term (`last`: 1 + the last unit counted), then each (unit, count)
        let vocab = self.vocab.len();
        let mut last = vec![0u32; vocab];
        let mut post_starts = vec![0u32; vocab + 1];
        for unit in 0..n {
            let held = unit as u32 + 1;
            for &id in &self.seq[self.starts[unit] as usize..self.starts[unit + 1] as usize] {
                if last[id as usize] != held {
                    last[id as usize] = held;
                    post_starts[id as usize + 1] += 1;
                }
            }
        }
        for id in 0..vocab {
            post_starts[id + 1] += post_starts[id];
        }
        let mut fill = post_starts.clone();
        let mut post = vec![(0u32, 0u32); post_starts[vocab] as usize];
        last.fill(0);
        for unit in 0..n {
            let held = unit as u32 + 1;
            for &id in &self.seq[self.starts[unit] as usize..self.starts[unit + 1] as usize] {
                let at = &mut fill[id as usize];
                if last[id as usize] != held {
                    last[id as usize] = held;
                    post[*at as usize] = (unit as u32, 1);
                    *at += 1;
                } else {
                    post[*at as usize - 1].1 += 1;
                }
            }
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
        self.vocab.get(term)
    }

    pub(crate) fn posting(&self, id: Option<u32>) -> &[(u32, u32)] {
        id.map_or(&[], |id| {
            &self.post
                [self.post_starts[id as usize] as usize..self.post_starts[id as usize + 1] as usize]
        })
    }

    pub(crate) fn count(&self, id: Option<u32>, unit: usize) -> Option<u32> {
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
}

#[cfg(test)]
mod tests;
