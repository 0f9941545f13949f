//! A correction that overflows is refused and leaves every byte as it
//! was, in the sequential sweep and in the colored one. The in-place
//! kernels of the bends, tets and tethers write a corrected position
//! before they test it (so its store does not wait on the test) and put
//! the old bits back when the test fails: these scenes take that path for
//! tets and tethers (a bend's multiplier step is bounded, `|Δλ| ≤
//! π/MIN_POSITIVE`, so no simple scene overflows it; the degenerate bends
//! of `tests/bend.rs` take the undo).

use xpbd::{Constraints, GroupColors, Link, System, SystemError, Tet, Tether};

const H: f64 = 0.01;

fn bits(x: &[[f64; 3]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_bits()).collect()
}

/// One color: `[0, len]`, or none for an empty group.
fn starts(len: usize) -> Vec<usize> {
    if len == 0 {
        vec![]
    } else {
        vec![0, len]
    }
}

/// A tiny inverse mass (1e-300 1/kg) makes `W` tiny and `Δλ = −C/W`
/// overflow to ±∞: λ' and the moved positions are not finite.
const TINY: f64 = 1e-300;

/// Runs one iteration of `constraints` sequentially, then (from the same
/// start) colored in one color; both must fail with `InvalidResult` for
/// `constraint` and leave positions and multipliers untouched.
fn refused_both_ways(
    x0: &[[f64; 3]],
    w: &[f64],
    mut make: impl FnMut() -> (Vec<Tet<f64>>, Vec<Tether<f64>>),
) {
    let before = bits(x0);
    for colored in [false, true] {
        let mut x = x0.to_vec();
        let (mut tets, mut tethers) = make();
        let (tet_count, tether_count) = (tets.len(), tethers.len());
        let mut links: [Link<f64>; 0] = [];
        let mut system = System::new(&mut x, w, &mut links)
            .unwrap()
            .with_constraints(Constraints {
                tets: &mut tets,
                tethers: &mut tethers,
                ..Default::default()
            });
        let mut sub = system.begin_substep(H).unwrap();
        let result = if colored {
            let mut stamp = vec![0u32; x0.len()];
            // One color per non-empty group: boundaries [0, len].
            let (tet_starts, tether_starts) = (starts(tet_count), starts(tether_count));
            let colors = GroupColors {
                tets: &tet_starts,
                tethers: &tether_starts,
                ..GroupColors::default()
            };
            let mut view = sub.colored(colors, &mut stamp).unwrap();
            view.iterate().map(|_| ())
        } else {
            sub.iterate().map(|_| ())
        };
        assert_eq!(
            result,
            Err(SystemError::InvalidResult { constraint: 0 }),
            "colored {colored}"
        );
        assert_eq!(bits(system.positions()), before, "colored {colored}");
        let c = system.constraints();
        assert!(c.tets.iter().all(|t| t.lambda.to_bits() == 0));
        assert!(c.tethers.iter().all(|t| t.lambda.to_bits() == 0));
    }
}

#[test]
fn a_tether_whose_correction_overflows_writes_nothing() {
    // 1e10 m apart, allowed 1 m: C ≈ 1e10, W = 1e-300, Δλ = −∞.
    let x0 = [[0.0, 0.0, 0.0], [1e10, 0.0, 0.0]];
    let w = [0.0, TINY];
    refused_both_ways(&x0, &w, || (vec![], vec![Tether::new(1, 0, 1.0, 0.0)]));
    // The anchor moves too (both particles corrected, then both undone).
    let w = [TINY, TINY];
    refused_both_ways(&x0, &w, || (vec![], vec![Tether::new(1, 0, 1.0, 0.0)]));
    // Only the anchor moves.
    let w = [TINY, 0.0];
    refused_both_ways(&x0, &w, || (vec![], vec![Tether::new(1, 0, 1.0, 0.0)]));
}

#[test]
fn a_tet_whose_correction_overflows_writes_nothing() {
    // A unit corner tet (6V = 1 m³) whose rest volume is 1e10 m³: C ≈ −6e10,
    // W ≈ 3e-300, Δλ = +∞.
    let x0 = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for w in [[TINY; 4], [0.0, TINY, TINY, 0.0]] {
        refused_both_ways(&x0, &w, || {
            (vec![Tet::new([0, 1, 2, 3], 1e10, 0.0)], vec![])
        });
    }
}
