//! Any text as units and claim: building an index and locating a claim never panics, and what
//! `locate` returns is a span of neighbouring units of one segment holding a claim term, with the best
//! units in order; scoring every unit and scoring the candidates agree where both score a unit; the
//! support features of the best units are finite, the shares among them within 0..1.
#![no_main]

use cite_native::scorer::{Claim, IndexBuilder, Params};
use cite_native::support::SupportClaim;
use cite_native::terms::{ascii_words, Stemmer};
use libfuzzer_sys::fuzz_target;

const SUFFIXES: &[&str] = &["ation", "ies", "ied", "ing", "ed", "es", "ly", "s"];

fuzz_target!(|data: &[u8]| {
    let Some((&[long, cap, top, flags], rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).to_lowercase();
    let (claim_text, source) = text.split_once('|').unwrap_or((&text, &text));
    let stemmer = Stemmer::new(&["the", "a"], SUFFIXES);
    let analyse = |s: &str| -> Vec<String> {
        let separated: String = s
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
            .collect();
        ascii_words(&separated)
            .filter_map(|w| stemmer.term(w))
            .collect()
    };
    let units: Vec<Vec<String>> = source.split(['.', '\n']).map(analyse).collect();
    let n = units.len();
    let segments = (0..n)
        .map(|i| (i as u32 * u32::from(flags & 3)) / 7)
        .collect();
    let breaks = (0..n.saturating_sub(1))
        .map(|i| (i + usize::from(flags)) % 5 == 0)
        .collect();
    let fragments = (0..n)
        .map(|i| (i + usize::from(flags >> 4)) % 3 == 0)
        .collect();
    let mut builder = IndexBuilder::new(segments, breaks, fragments).expect("one of each per unit");
    for terms in &units {
        let ids: Vec<u32> = terms.iter().map(|t| builder.intern(t)).collect();
        builder.push(&ids).expect("one push per unit");
    }
    let index = builder.build().expect("every unit pushed");
    let terms = analyse(claim_text);
    let mut distinct: Vec<&String> = Vec::new();
    let mut ids = Vec::new();
    let mut idfs = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        if !distinct.contains(&term) {
            distinct.push(term);
            ids.push(index.id(term));
            idfs.push(1.0 + (i % 4) as f64 / 3.0);
        }
    }
    let seq: Vec<usize> = terms
        .iter()
        .map(|t| distinct.iter().position(|d| *d == t).unwrap())
        .collect();
    let total = idfs.iter().fold(0.0, |a, b| a + b);
    let claim = Claim { ids, idfs, total };
    let p = Params {
        k1: 1.2,
        b: 0.2,
        extend_gain: 0.2,
        fragment_weight: 0.8,
        tie: 1e-9,
        long: usize::from(long),
        cap: usize::from(cap).max(1),
        top: usize::from(top % 8),
    };
    let all = index.bm25(&claim, 3.0, &p);
    let every: Vec<usize> = (0..n).collect();
    assert_eq!(index.bm25_of(&claim, 3.0, &every, &p), all);
    let scored = index.score(&claim, 3.0, &p);
    if let Some(found) = &scored.units {
        assert!(found.len() <= p.cap && found.windows(2).all(|w| w[0] < w[1]));
        for (&unit, &score) in found.iter().zip(&scored.scores) {
            assert_eq!(score, all[unit]);
        }
    }
    let located = index
        .locate(&claim, &scored, &p, |unit| Ok::<i64, ()>((unit % 3) as i64))
        .expect("verbatim never fails here");
    if let (Some(first), Some(last)) = (located.first, located.last) {
        assert!(
            first <= last && last < n && last - first <= 2,
            "{located:?}"
        );
        assert!(all[first..=last].iter().any(|&s| s > 0.0));
    } else {
        assert_eq!(located.first, located.last);
    }
    if let Some(best) = &located.top {
        assert!(best.len() <= p.top && best.windows(2).all(|w| w[0] < w[1]));
        assert!(best.iter().all(|&unit| all[unit] > 0.0));
    }
    let numbers: Vec<usize> = (0..distinct.len())
        .filter(|&at| distinct[at].starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let rare = (0..distinct.len()).step_by(3).collect();
    let support = SupportClaim::new(&seq, numbers, rare);
    let names: Vec<Option<u32>> = distinct.iter().map(|t| index.id(t)).take(2).collect();
    let cited: Vec<usize> = located.top.unwrap_or_default();
    let features = index.features(&claim, &support, &names, &cited);
    assert!(
        features.iter().all(|f| f.is_finite() && *f >= 0.0),
        "{features:?}"
    );
    assert!(features[..3]
        .iter()
        .chain(&features[4..5])
        .chain(&features[6..])
        .all(|&f| f <= 1.0 + 1e-9)); // a share, up to rounding
});
