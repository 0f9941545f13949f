//! Constraint groups in colored order, shared by the colored stepping
//! tests (`tests/colored_step.rs`, `tests/frame_transaction.rs`).
#![allow(dead_code)]

use xpbd::{color_instances, color_moving_instances, color_order, fill_in_order, Instance};

/// A group colored greedily and stored in colored order, with its
/// boundaries.
pub fn colored<const N: usize, K: Instance<N>>(items: &[K], n: usize) -> (Vec<K>, Vec<usize>) {
    let mut used = vec![0u64; n];
    let mut colors = vec![0u32; items.len()];
    let count = color_instances(items, n, &mut used, &mut colors).unwrap();
    in_order(items, &colors, count)
}

/// [`colored`] over the moving particles (`color_moving_instances`:
/// particles with `w = 0` are no conflict).
pub fn colored_moving<const N: usize, K: Instance<N>>(
    items: &[K],
    w: &[f64],
) -> (Vec<K>, Vec<usize>) {
    let mut used = vec![0u64; w.len()];
    let mut colors = vec![0u32; items.len()];
    let count = color_moving_instances(items, w, &mut used, &mut colors).unwrap();
    in_order(items, &colors, count)
}

/// `items` stored in the colored order of `colors` (`count` colors), with
/// the boundaries.
fn in_order<K: Copy>(items: &[K], colors: &[u32], count: u32) -> (Vec<K>, Vec<usize>) {
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    color_order(colors, count, &mut starts, &mut order).unwrap();
    let mut out = items.to_vec();
    assert_eq!(fill_in_order(items, &order, &mut out), Ok(items.len()));
    (out, starts)
}
