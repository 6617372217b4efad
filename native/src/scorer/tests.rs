use super::*;
use crate::span::Located;

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
        IndexBuilder::new(vec![0; n], vec![false; n.saturating_sub(1)], vec![false; n]).unwrap();
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
fn postings_are_each_terms_units_in_order_with_counts() {
    let mut seed = 7u64;
    let mut units: Vec<Vec<u32>> = Vec::new();
    let mut builder = IndexBuilder::new(vec![0; 60], vec![false; 59], vec![false; 60]).unwrap();
    let names: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
    let ids: Vec<u32> = names.iter().map(|t| builder.intern(t)).collect();
    for _ in 0..60 {
        let mut unit = Vec::new();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        for _ in 0..(seed >> 60) {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            unit.push(ids[((seed >> 33) % 40) as usize]);
        }
        builder.push(&unit).unwrap();
        units.push(unit);
    }
    let ix = builder.build().unwrap();
    for (t, &id) in names.iter().zip(&ids) {
        let want: Vec<(u32, u32)> = units
            .iter()
            .enumerate()
            .filter_map(|(u, terms)| {
                let count = terms.iter().filter(|&&x| x == id).count() as u32;
                (count > 0).then_some((u as u32, count))
            })
            .collect();
        assert_eq!(ix.posting(ix.id(t)), want.as_slice());
    }
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
