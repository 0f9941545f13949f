//! Tearing (issue 16, item 4) and the contact overflow policy (item 5):
//! disabled links are skipped by the sequential and colored sweeps exactly
//! as if they were removed; the step tears links over their maximum force,
//! deterministically; keep-first drops exactly the documented contacts.

#[path = "support/colored_plan.rs"]
mod colored_plan;

use colored_plan::*;
use xpbd::{cloth, cloth_coloring, Aos, ColoredSystem, Link, Real, System, SystemError};

/// Every third link of a stretched cloth disabled: `(positions, w, links
/// with the flag, the coloring, color count)`.
fn torn_cloth<T: Real>() -> (Vec<[T; 3]>, Vec<T>, Vec<Link<T>>, Vec<u32>, u32) {
    let (rows, cols) = if cfg!(miri) { (4, 5) } else { (9, 13) };
    let (x, w) = stretched_cloth(rows, cols);
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    let mut links: Vec<Link<T>> = links
        .iter()
        .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
        .collect();
    for (k, l) in links.iter_mut().enumerate() {
        if k % 3 == 1 {
            l.flags |= Link::<T>::DISABLED;
        }
        if k % 5 == 2 {
            l.flags |= Link::<T>::TENSION_ONLY;
        }
    }
    let mut xp = x.clone();
    perturb(&mut xp);
    let xp = xp
        .iter()
        .map(|p| p.map(|v| T::from_f64(v * 1.05)))
        .collect();
    let w = w.iter().map(|&v| T::from_f64(v)).collect();
    (xp, w, links, colors, count)
}

/// The links and colors without the disabled ones, in the same order.
fn without_disabled<T: Real>(links: &[Link<T>], colors: &[u32]) -> (Vec<Link<T>>, Vec<u32>) {
    links
        .iter()
        .zip(colors)
        .filter(|(l, _)| !l.is_disabled())
        .map(|(l, c)| (*l, *c))
        .unzip()
}

fn colored_run<T: Real>(
    x0: &[[T; 3]],
    w: &[T],
    links: &[Link<T>],
    colors: &[u32],
    count: u32,
    sweeps: usize,
) -> (Vec<u64>, Vec<T>, Vec<u32>, Vec<xpbd::SweepStats<T>>) {
    let mut plan = Plan::new(links, colors, count);
    let mut x = x0.to_vec();
    let mut stamp = vec![0u32; x.len()];
    let mut stats = Vec::new();
    {
        let mut sys = ColoredSystem::new(
            Aos {
                positions: &mut x,
                w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
        for _ in 0..sweeps {
            stats.push(sub.iterate().unwrap());
        }
    }
    (bits(&x), plan.lambda.clone(), plan.order.clone(), stats)
}

fn colored_disabled_equals_removed<T: Real>() {
    let (x, w, links, colors, count) = torn_cloth::<T>();
    let disabled = links.iter().filter(|l| l.is_disabled()).count();
    assert!(disabled > 10);
    let (kept, kept_colors) = without_disabled(&links, &colors);
    let (xa, la, order_a, sa) = colored_run(&x, &w, &links, &colors, count, 4);
    let (xb, lb, _, sb) = colored_run(&x, &w, &kept, &kept_colors, count, 4);
    assert_eq!(xa, xb);
    // λ of the enabled links equal, of the disabled ones 0.
    let mut enabled = Vec::new();
    for (k, &src) in order_a.iter().enumerate() {
        if links[src as usize].is_disabled() {
            assert_eq!(la[k].to_f64().to_bits(), 0);
        } else {
            enabled.push(la[k]);
        }
    }
    assert_eq!(bits1(&enabled), bits1(&lb));
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.applied, b.applied);
        assert_eq!(a.skipped_static, b.skipped_static + disabled);
        assert_eq!(
            a.max_abs_c.to_f64().to_bits(),
            b.max_abs_c.to_f64().to_bits()
        );
        assert_eq!(
            a.max_residual.to_f64().to_bits(),
            b.max_residual.to_f64().to_bits()
        );
    }
}

#[test]
fn colored_sweep_with_disabled_links_equals_the_sweep_without_them() {
    colored_disabled_equals_removed::<f64>();
    colored_disabled_equals_removed::<f32>();
}

fn sequential_disabled_equals_removed<T: Real>() {
    let (x0, w, mut links, colors, _) = torn_cloth::<T>();
    let disabled = links.iter().filter(|l| l.is_disabled()).count();
    let (mut kept, _) = without_disabled(&links, &colors);
    let run = |links: &mut [Link<T>]| {
        let mut x = x0.clone();
        let mut stats = Vec::new();
        {
            let mut sys = System::new(&mut x, &w, links).unwrap();
            let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
            for _ in 0..4 {
                stats.push(sub.iterate().unwrap());
            }
        }
        (bits(&x), stats)
    };
    let (xa, sa) = run(&mut links);
    let (xb, sb) = run(&mut kept);
    assert_eq!(xa, xb);
    let enabled: Vec<T> = links
        .iter()
        .filter(|l| !l.is_disabled())
        .map(|l| l.lambda)
        .collect();
    assert_eq!(
        bits1(&enabled),
        bits1(&kept.iter().map(|l| l.lambda).collect::<Vec<_>>())
    );
    assert!(links
        .iter()
        .filter(|l| l.is_disabled())
        .all(|l| l.lambda.to_f64().to_bits() == 0));
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.applied, b.applied);
        assert_eq!(a.skipped_static, b.skipped_static + disabled);
        assert_eq!(
            a.max_residual.to_f64().to_bits(),
            b.max_residual.to_f64().to_bits()
        );
    }
}

#[test]
fn sequential_sweep_with_disabled_links_equals_the_sweep_without_them() {
    sequential_disabled_equals_removed::<f64>();
    sequential_disabled_equals_removed::<f32>();
}

#[test]
fn a_disabled_link_needs_only_valid_indices() {
    let mut x = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let w = [1.0, 1.0, 1.0];
    // Coincident particles, a zero rest length and a NaN compliance: never read.
    let mut bad = Link::new(0, 1, 0.0, f64::NAN);
    bad.flags = Link::<f64>::DISABLED;
    let mut links = [Link::new(1, 2, 1.0, 0.0), bad];
    let mut sys = System::new(&mut x, &w, &mut links).unwrap();
    assert!(sys.begin_substep(0.01).is_ok());
    // Its indices still are.
    sys.links_mut()[1].j = 7;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::IndexOutOfRange { constraint: 1 }
    );
    sys.links_mut()[1].j = 0;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::SameParticle { constraint: 1 }
    );
    sys.links_mut()[1].j = 1;
    sys.links_mut()[1].flags = 4;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::InvalidRestLength { constraint: 1 }
    );
    sys.links_mut()[1] = Link::new(0, 1, 1.0, 0.0);
    sys.links_mut()[1].flags = Link::<f64>::DISABLED | 4;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::InvalidFlags { constraint: 1 }
    );
}
