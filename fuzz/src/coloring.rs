//! What the colored fuzz targets share (`groups_colored`,
//! `step_colored`): coloring a group through the C calls, putting it in
//! colored order, the color boundaries as the C struct.

use xpbd::ffi::XpbdStatus;
use xpbd::ffi::*;

use crate::Input;

/// A status the header documents (−29 … 1).
pub fn documented(s: XpbdStatus) -> bool {
    (-29..=1).contains(&s.code())
}

/// A value from the bytes: usually `valid`, sometimes hostile.
pub fn value(input: &mut Input, valid: f64) -> f64 {
    if input.byte() < 240 {
        valid
    } else {
        input.real::<f64>()
    }
}

/// Colors a group of `len` items through `color` (the C call) and checks
/// the no-write rule on a refusal; `None` when refused.
pub fn color(
    len: usize,
    color: impl FnOnce(*mut u32, *mut u32) -> XpbdStatus,
) -> Option<(Vec<u32>, u32)> {
    let mut colors = vec![0xdead_beef_u32; len];
    let mut count = 0x5555_u32;
    let status = color(colors.as_mut_ptr(), &mut count);
    assert!(documented(status), "status {}", status.code());
    if status != XpbdStatus::Ok {
        assert!(
            colors.iter().all(|&c| c == 0xdead_beef),
            "colors written on a refusal"
        );
        assert_eq!(count, 0x5555, "count written on a refusal");
        return None;
    }
    Some((colors, count))
}

/// Puts `items` in colored order (`xpbd_color_order`); the boundaries and
/// the color count (none for an empty group).
pub fn order<K: Copy>(items: &mut [K], (colors, count): (Vec<u32>, u32)) -> (Vec<usize>, usize) {
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    // SAFETY: valid, disjoint buffers of the documented lengths.
    let s = unsafe {
        xpbd_color_order(
            colors.as_ptr(),
            items.len(),
            count,
            starts.as_mut_ptr(),
            order.as_mut_ptr(),
        )
    };
    assert_eq!(s, XpbdStatus::Ok);
    let copy = items.to_vec();
    for (slot, &k) in items.iter_mut().zip(&order) {
        *slot = copy[k as usize];
    }
    if items.is_empty() {
        return (vec![], 0);
    }
    (starts, count as usize)
}

/// The boundaries of the links, bends, tets and tethers (in that order)
/// as the C struct (NULL for a group without colors).
pub fn group_colors(starts: &[Vec<usize>; 4], counts: [usize; 4]) -> XpbdGroupColors {
    let s = |v: &Vec<usize>| {
        if v.is_empty() {
            core::ptr::null()
        } else {
            v.as_ptr()
        }
    };
    XpbdGroupColors {
        link_color_starts: s(&starts[0]),
        link_color_count: counts[0],
        bend_color_starts: s(&starts[1]),
        bend_color_count: counts[1],
        tet_color_starts: s(&starts[2]),
        tet_color_count: counts[2],
        tether_color_starts: s(&starts[3]),
        tether_color_count: counts[3],
    }
}

/// The colors of the links (`xpbd_color_greedy`) and of the bends, tets
/// and tethers (`xpbd_color_group`) of `n` particles, each as [`color`]
/// gives it (every group colored, each refusal checked); `None` when any
/// is refused.
pub fn color_all(
    links: (*const XpbdLink, usize),
    g: &XpbdConstraints3,
    n: usize,
) -> Option<[(Vec<u32>, u32); 4]> {
    let mut marks = vec![0u64; n];
    let mp = marks.as_mut_ptr();
    let none = core::ptr::null_mut();
    // SAFETY (each call): valid, disjoint buffers of the stated counts.
    let l = color(links.1, |c, out| unsafe {
        xpbd_color_greedy(links.0, links.1, n, mp, c, out)
    });
    let group = |kind, len| {
        color(len, |c, out| unsafe {
            xpbd_color_group(g, kind, n, mp, c, out, none)
        })
    };
    let b = group(XPBD_GROUP_BENDS, g.bend_count);
    let t = group(XPBD_GROUP_TETS, g.tet_count);
    let e = group(XPBD_GROUP_TETHERS, g.tether_count);
    Some([l?, b?, t?, e?])
}
