//! Every table against a reference model, hand-computed comparison counts, and the
//! growth of lookup cost with the record count (the paper's §4).

use super::*;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeMap;

fn kinds() -> Vec<TableKind> {
    TableKind::all().iter().map(|(k, _, _)| *k).collect()
}

/// `n` one-unit records at units 0, 2, 4, … (gaps so misses exist), inserted in
/// ascending order as the paper's pre-set test does.
fn ascending(kind: TableKind, n: u64) -> Box<dyn CacheTable> {
    let mut t = kind.build();
    for i in 0..n {
        t.insert(Record {
            start: 2 * i,
            len: 1,
            value: i as u32,
        });
    }
    t
}

#[test]
fn the_papers_example_table_with_hand_counted_comparisons() {
    // Fig. 7: 0x100–0x10F, 0x200–0x20F, 0x300–0x30F, 0x400–0x40F.
    for kind in kinds() {
        let mut t = kind.build();
        for (i, s) in [0x100u64, 0x200, 0x300, 0x400].into_iter().enumerate() {
            t.insert(Record {
                start: s,
                len: 16,
                value: 0x10000 + 16 * i as u32,
            });
        }
        let mut cmp = 0;
        let (_, r) = t.find(0x405, &mut cmp).unwrap();
        assert_eq!(r.value, 0x10030);
        // list: passes 0x100, 0x200, 0x300, matches 0x400 → 4.
        // avl: inserting 100, 200, 300 rotates 200 to the root; 400 hangs under 300:
        //      200 → 300 → 400 → 3.
        // btree: one leaf of 4; the binary search probes index 2 (0x300 ≤ 0x405), 3
        //      (0x400 ≤ 0x405) and confirms 3, then checks 0x405 < 0x410 → 4.
        let expected = match kind {
            TableKind::List => 4,
            TableKind::Avl => 3,
            TableKind::Btree => 4,
        };
        assert_eq!(cmp, expected, "{kind:?}");
        let mut cmp = 0;
        assert!(t.find(0x110, &mut cmp).is_none(), "{kind:?}");
        assert!(t.find(0x50, &mut cmp).is_none(), "{kind:?}");
    }
}

#[test]
fn avl_finds_any_of_1023_records_in_at_most_10_comparisons_the_list_in_1023() {
    // The paper's §4.1 example. Ascending inserts build a perfect AVL tree of height 10.
    let avl = ascending(TableKind::Avl, 1023);
    let list = ascending(TableKind::List, 1023);
    let (mut avl_max, mut list_max) = (0, 0);
    for i in 0..1023 {
        let (mut a, mut l) = (0, 0);
        assert!(avl.find(2 * i, &mut a).is_some());
        assert!(list.find(2 * i, &mut l).is_some());
        avl_max = avl_max.max(a);
        list_max = list_max.max(l);
    }
    assert_eq!(avl_max, 10);
    assert_eq!(list_max, 1023);
}

/// Mean comparisons of `lookups` random hits in a table of `n` records inserted in
/// random order.
fn mean_random_comparisons(kind: TableKind, n: u64, lookups: u64) -> f64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(n);
    let mut order: Vec<u64> = (0..n).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let mut t = kind.build();
    for &i in &order {
        t.insert(Record {
            start: 2 * i,
            len: 1,
            value: 0,
        });
    }
    let mut cmp = 0;
    for _ in 0..lookups {
        assert!(t.find(2 * rng.gen_range(0..n), &mut cmp).is_some());
    }
    cmp as f64 / lookups as f64
}

#[test]
fn tree_lookups_grow_logarithmically_and_list_lookups_linearly() {
    for n in [1_000u64, 10_000, 100_000] {
        let log2 = (n as f64).log2();
        // A random hit in an insertion-ordered list passes half the records on average.
        let list = mean_random_comparisons(TableKind::List, n, 400);
        assert!((list / n as f64 - 0.5).abs() < 0.06, "list n={n}: {list}");
        // AVL: an average node depth between log2(n) − 2 and 1.44·log2(n).
        let avl = mean_random_comparisons(TableKind::Avl, n, 20_000);
        assert!(avl > log2 - 2.0 && avl < 1.44 * log2, "avl n={n}: {avl}");
        // B+-tree: ⌈log2 k⌉ + 1 probes in a node of k keys, one node per level, plus the
        // final check. The key counts multiply to about n, so the sum is log2(n) plus at
        // most two per level; levels ≤ ⌈log16 n⌉ + 1 (nodes at least half full on
        // random inserts).
        let bt = mean_random_comparisons(TableKind::Btree, n, 20_000);
        let levels = (n as f64).log(16.0).ceil() + 1.0;
        assert!(
            bt > log2 - 1.0 && bt < log2 + 2.0 * levels + 1.0,
            "btree n={n}: {bt}"
        );
    }
    // Growth between 1 K and 100 K records: ×100 for the list; for the trees about
    // log2(100) ≈ 6.6 more comparisons (plus up to two per added B+-tree level).
    let l1 = mean_random_comparisons(TableKind::List, 1_000, 400);
    let l2 = mean_random_comparisons(TableKind::List, 100_000, 400);
    assert!((l2 / l1 - 100.0).abs() < 20.0, "{l1} → {l2}");
    for kind in [TableKind::Avl, TableKind::Btree] {
        let a = mean_random_comparisons(kind, 1_000, 20_000);
        let b = mean_random_comparisons(kind, 100_000, 20_000);
        assert!(b - a > 4.0 && b - a < 12.0, "{kind:?}: {a} → {b}");
    }
}

#[test]
fn the_hint_makes_sequential_lookups_constant_cost() {
    for kind in kinds() {
        for n in [1_000u64, 100_000] {
            let t = ascending(kind, n);
            let mut hint = None;
            let mut cmp = 0;
            let mut from_hint = 0;
            for i in 0..n {
                let (r, hinted) = find_hinted(t.as_ref(), 2 * i, &mut hint, &mut cmp);
                assert_eq!(r.unwrap().start, 2 * i);
                from_hint += hinted as u64;
            }
            // Every lookup after the first: the hinted record (1) misses, its successor
            // (1) hits → 2 comparisons, independent of n.
            assert_eq!(from_hint, n - 1, "{kind:?}");
            let first = {
                let mut c = 0;
                t.find(0, &mut c);
                c
            };
            assert_eq!(cmp, first + 2 * (n - 1), "{kind:?} n={n}");
            // A lookup inside the same record costs 1.
            let mut c = 0;
            find_hinted(t.as_ref(), 2 * (n - 1), &mut hint, &mut c);
            assert_eq!(c, 1);
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u64, u32),
    Remove(u64),
    SetLen(u64, u32),
    Find(u64),
    Overlap(u64, u64),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let unit = 0u64..2_000;
    let op = prop_oneof![
        5 => (unit.clone(), 1u32..40).prop_map(|(s, l)| Op::Insert(s, l)),
        2 => unit.clone().prop_map(Op::Remove),
        1 => (unit.clone(), 1u32..40).prop_map(|(s, l)| Op::SetLen(s, l)),
        3 => unit.clone().prop_map(Op::Find),
        1 => (unit, 1u64..200).prop_map(|(s, l)| Op::Overlap(s, l)),
    ];
    prop::collection::vec(op, 1..1500)
}

/// The record of `model` containing `u`.
fn model_find(model: &BTreeMap<u64, (u32, u32)>, u: u64) -> Option<Record> {
    let (&s, &(len, value)) = model.range(..=u).next_back()?;
    (u < s + len as u64).then_some(Record {
        start: s,
        len,
        value,
    })
}

fn fits(model: &BTreeMap<u64, (u32, u32)>, start: u64, len: u32, except: Option<u64>) -> bool {
    let end = start + len as u64;
    model
        .range(..end)
        .filter(|(s, _)| Some(**s) != except)
        .all(|(&s, &(l, _))| s + l as u64 <= start)
}

fn check_against_model(
    name: &str,
    mut t: Box<dyn CacheTable>,
    ops: &[Op],
) -> Result<(), TestCaseError> {
    let kind = name;
    let mut model: BTreeMap<u64, (u32, u32)> = BTreeMap::new();
    let mut hint = None;
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Insert(s, l) => {
                if fits(&model, s, l, None) {
                    t.insert(Record {
                        start: s,
                        len: l,
                        value: i as u32,
                    });
                    model.insert(s, (l, i as u32));
                }
            }
            Op::Remove(u) => {
                // Remove the record containing u if any, else try u as a start.
                let s = model_find(&model, u).map_or(u, |r| r.start);
                let got = t.remove(s);
                let want = model.remove(&s).map(|(len, value)| Record {
                    start: s,
                    len,
                    value,
                });
                prop_assert_eq!(got, want, "{} remove {}", kind, s);
            }
            Op::SetLen(u, l) => {
                if let Some(r) = model_find(&model, u)
                    && fits(&model, r.start, l, Some(r.start))
                {
                    prop_assert!(t.set_len(r.start, l));
                    model.insert(r.start, (l, r.value));
                }
            }
            Op::Find(u) => {
                let mut cmp = 0;
                let want = model_find(&model, u);
                prop_assert_eq!(t.find(u, &mut cmp).map(|(_, r)| r), want);
                let (got, _) = find_hinted(t.as_ref(), u, &mut hint, &mut cmp);
                prop_assert_eq!(got, want);
                prop_assert!(cmp <= 2 * model.len() as u64 + 4);
            }
            Op::Overlap(s, l) => {
                out.clear();
                let mut cmp = 0;
                t.overlapping(s, s + l, &mut out, &mut cmp);
                let want: Vec<Record> = model
                    .iter()
                    .filter(|&(&st, &(len, _))| st < s + l && s < st + len as u64)
                    .map(|(&start, &(len, value))| Record { start, len, value })
                    .collect();
                prop_assert_eq!(&out, &want);
            }
        }
        prop_assert_eq!(t.len(), model.len());
        if i % 97 == 0 {
            t.check_invariants();
        }
    }
    t.check_invariants();
    // Walking `next` from the first record visits every record in the table's order.
    let mut cmp = 0;
    if let Some(&first) = model.keys().next() {
        let mut c = t.find(first, &mut cmp).map(|(c, _)| c);
        let mut seen = 0;
        while let Some(cur) = c {
            seen += 1;
            c = t.next(cur).map(|(n, _)| n);
        }
        if kind != "list" {
            prop_assert_eq!(seen, model.len());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_table_agrees_with_a_reference_model(ops in ops()) {
        for kind in kinds() {
            check_against_model(kind.name(), kind.build(), &ops)?;
        }
        // Tiny nodes: many levels, splits and collapses even with few records.
        check_against_model("btree-2-3", Box::new(btree::BTreeTable::<2, 3>::new()), &ops)?;
        check_against_model("btree-4-4", Box::new(btree::BTreeTable::<4, 4>::new()), &ops)?;
    }
}

#[test]
fn btree_survives_bulk_inserts_and_removals_in_every_order() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    for pattern in 0..3 {
        let mut t = TableKind::Btree.build();
        let n = 50_000u64;
        let mut keys: Vec<u64> = (0..n).collect();
        match pattern {
            0 => {}
            1 => keys.reverse(),
            _ => {
                for i in (1..keys.len()).rev() {
                    keys.swap(i, rng.gen_range(0..=i));
                }
            }
        }
        for &k in &keys {
            t.insert(Record {
                start: 3 * k,
                len: 2,
                value: k as u32,
            });
        }
        t.check_invariants();
        for &k in keys.iter().step_by(2) {
            assert!(t.remove(3 * k).is_some());
        }
        t.check_invariants();
        for &k in keys.iter().skip(1).step_by(2) {
            let mut c = 0;
            assert_eq!(t.find(3 * k + 1, &mut c).unwrap().1.value, k as u32);
            assert!(t.remove(3 * k).is_some());
        }
        t.check_invariants();
        assert!(t.is_empty());
    }
}
