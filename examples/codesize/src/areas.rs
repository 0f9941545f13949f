//! One function per area of the C API, each calling every function of its
//! area the way a firmware would: state and parameters in RAM (opaque to
//! the optimiser), results stored back, statuses kept.
#![allow(dead_code)]

use core::ptr::addr_of_mut;

use crate::common::{opaque, sink};
use xpbd::ffi::*;

/// One link's state and parameters, in RAM.
#[repr(C)]
pub struct Link<C, T> {
    pub c: C,
    pub a: T,
    pub b: T,
    pub wa: T,
    pub wb: T,
    pub rest: T,
    pub compliance: T,
    pub dt: T,
}

static mut LINK_F32: Link<XpbdDistanceConstraintF32, f32> = Link {
    c: XpbdDistanceConstraintF32 { lambda: 0.0 },
    a: 0.0,
    b: 2.0,
    wa: 1.0,
    wb: 1.0,
    rest: 1.0,
    compliance: 0.01,
    dt: 0.1,
};

static mut LINK_F64: Link<XpbdDistanceConstraint, f64> = Link {
    c: XpbdDistanceConstraint { lambda: 0.0 },
    a: 0.0,
    b: 2.0,
    wa: 1.0,
    wb: 1.0,
    rest: 1.0,
    compliance: 0.01,
    dt: 0.1,
};

/// The f32 1D pair: `xpbd_distance_begin_substep_f32` + `xpbd_distance_solve_f32`.
#[inline(always)]
pub fn f32_pair() {
    let l = opaque(addr_of_mut!(LINK_F32));
    // SAFETY: `l` points at a static only this single-threaded image uses;
    // no reference to it is formed.
    let (s0, s1) = unsafe {
        let c = addr_of_mut!((*l).c);
        (
            xpbd_distance_begin_substep_f32(c),
            xpbd_distance_solve_f32(
                c,
                addr_of_mut!((*l).a),
                addr_of_mut!((*l).b),
                (*l).wa,
                (*l).wb,
                (*l).rest,
                (*l).compliance,
                (*l).dt,
            ),
        )
    };
    sink(s0.code() as u32 ^ s1.code() as u32);
}

/// The f64 1D pair: `xpbd_distance_begin_substep` + `xpbd_distance_solve`.
#[inline(always)]
pub fn f64_pair() {
    let l = opaque(addr_of_mut!(LINK_F64));
    // SAFETY: as in `f32_pair`.
    let (s0, s1) = unsafe {
        let c = addr_of_mut!((*l).c);
        (
            xpbd_distance_begin_substep(c),
            xpbd_distance_solve(
                c,
                addr_of_mut!((*l).a),
                addr_of_mut!((*l).b),
                (*l).wa,
                (*l).wb,
                (*l).rest,
                (*l).compliance,
                (*l).dt,
            ),
        )
    };
    sink(s0.code() as u32 ^ s1.code() as u32);
}

/// `xpbd_status_str`.
#[inline(always)]
pub fn status_str() {
    let p = xpbd_status_str(opaque(-3));
    sink(p as usize as u32);
}
