//! Property tests of colored solving over random topologies, as the
//! sequential ones: greedy coloring is proper, any valid system solves to
//! the reference bits on 1–4 threads, any one corrupted link or particle is
//! rejected at begin_substep naming it with nothing written.

#[path = "support/colored_plan.rs"]
mod colored_plan;

use colored_plan::{compare, Plan};
use proptest::prelude::*;
use proptest::test_runner::RngAlgorithm;
use xpbd::{check_coloring, greedy_coloring, Aos, Link, SimdLinks, SystemError};

#[derive(Debug, Clone)]
struct Case {
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
}

fn case() -> impl Strategy<Value = Case> {
    // Under Miri smaller systems (the same shapes of failure are reachable).
    let (max_n, max_links) = if cfg!(miri) { (12, 16) } else { (40, 60) };
    (2usize..max_n).prop_flat_map(move |n| {
        let particles = prop::collection::vec(
            (
                prop::array::uniform3(-5.0..5.0f64),
                prop_oneof![Just(0.0), 0.1..3.0f64],
            ),
            n,
        );
        let links = prop::collection::vec(
            (
                0..n as u32,
                1..n as u32,
                0.05..3.0f64,
                prop_oneof![Just(0.0), 1e-6..1e-1f64],
            ),
            1..max_links, // at most 60 links: greedy never needs more than its 64 colors
        );
        (particles, links).prop_map(move |(p, l)| Case {
            x: p.iter().map(|(x, _)| *x).collect(),
            w: p.iter().map(|(_, w)| *w).collect(),
            links: l
                .iter()
                .map(|&(i, k, rest, c)| Link::new(i, (i + k) % n as u32, rest, c))
                .collect(),
        })
    })
}

fn coloring(k: &Case) -> (Vec<u32>, u32) {
    let mut used = vec![0u64; k.x.len()];
    let mut colors = vec![0u32; k.links.len()];
    let count = greedy_coloring(&k.links, k.x.len(), &mut used, &mut colors).unwrap();
    (colors, count)
}

proptest! {
    // Under Miri (`cargo +nightly miri test`) a handful of cases.
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 3 } else { 128 },
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        // Under Miri the xorshift generator: ChaCha, the default, takes
        // seconds of interpretation per case.
        rng_algorithm: if cfg!(miri) { RngAlgorithm::XorShift } else { ProptestConfig::default().rng_algorithm },
        ..ProptestConfig::default()
    })]

    #[test]
    #[cfg_attr(
        miri,
        ignore = "safe Rust: the coloring and its check; colorings feed the colored systems \
                  of the two tests below under Miri"
    )]
    fn greedy_coloring_is_proper(k in case()) {
        let (colors, count) = coloring(&k);
        let p = Plan::new(&k.links, &colors, count);
        let mut stamp = vec![0u32; k.x.len()];
        prop_assert_eq!(check_coloring(&p.i, &p.j, &p.starts, k.x.len(), &mut stamp), Ok(()));
        // Greedy never needs more than 2·(max degree) − 1 colors.
        let mut degree = vec![0u32; k.x.len()];
        for l in &k.links { degree[l.i as usize] += 1; degree[l.j as usize] += 1; }
        let d = *degree.iter().max().unwrap();
        prop_assert!(count < 2 * d);
    }

    #[test]
    fn random_systems_match_the_reference_on_any_thread_count(k in case(), iters in 1usize..6) {
        // Coincident particles are legal input but rejected by default: move them apart.
        let mut k = k;
        for (n, p) in k.x.iter_mut().enumerate() { p[2] += n as f64 * 1e-3; }
        let (colors, count) = coloring(&k);
        compare(&k.x, &k.w, &k.links, &colors, count, iters);
    }

    #[test]
    fn one_bad_input_is_named_and_nothing_changes(k in case(), which in any::<prop::sample::Index>(), kind in 0usize..4) {
        let (colors, count) = coloring(&k);
        let mut plan = Plan::new(&k.links, &colors, count);
        let mut x = k.x.clone();
        let mut w = k.w.clone();
        for l in plan.lambda.iter_mut() { *l = -0.5; }
        let link = which.index(plan.i.len());
        let particle = which.index(x.len());
        let want = match kind {
            0 => { plan.rest[link] = f64::NAN; SystemError::InvalidRestLength { constraint: link } }
            1 => { plan.compliance[link] = -1.0; SystemError::InvalidCompliance { constraint: link } }
            2 => { x[particle][1] = f64::NAN; SystemError::NonFinitePosition { particle } }
            _ => { w[particle] = f64::INFINITY; SystemError::InvalidInverseMass { particle } }
        };
        let before = x.clone();
        let mut stamp = vec![0u32; x.len()];
        let got = {
            let mut sys = SimdLinks::new(Aos { positions: &mut x, w: &w }, plan.links(), &mut stamp).unwrap();
            sys.begin_substep(0.01).err().unwrap()
        };
        // Earlier particles / links are checked first, so the error names the
        // corrupted one unless an earlier one already fails (e.g. a zero length).
        if !matches!(got, SystemError::ZeroLength { .. }) {
            prop_assert_eq!(got, want);
        }
        prop_assert_eq!(format!("{:?}", x), format!("{:?}", before));
        prop_assert!(plan.lambda.iter().all(|&l| l == -0.5));
    }
}
