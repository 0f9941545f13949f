//! The run's report: ratio lines with their targets, and what the machine
//! was doing (load average, hypervisor steal time).

use crate::timing::Pair;

/// CPU time counters from `/proc/stat` (all CPUs): `(steal, total)` in
/// clock ticks; `None` where there is no such file or it does not parse.
pub(crate) fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v = line
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]:
    // guest time is already counted in user and nice.
    let total = v.iter().take(8).sum();
    Some((*v.get(7)?, total))
}

/// The share of CPU time the hypervisor took from this machine between two
/// `cpu_ticks` readings (steal time): on a shared VM, a figure of more than a
/// few percent means the run competed with other guests.
pub(crate) fn steal_share(before: Option<(u64, u64)>) -> String {
    match (before, cpu_ticks()) {
        (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
            format!(
                "{:.1} %",
                100.0 * s1.saturating_sub(s0) as f64 / (t1 - t0) as f64
            )
        }
        _ => "unknown".into(),
    }
}

/// The machine's load average (Linux), to judge how disturbed a run was:
/// with other processes running, the two-thread figure especially suffers.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// One ratio line: `ours / reference` and the target it is held to.
#[derive(Debug, Clone)]
pub struct Ratio {
    /// What is compared.
    pub what: String,
    /// Our throughput (solves/s).
    pub ours: f64,
    /// The reference throughput (solves/s).
    pub reference: f64,
    /// The measured ratio `ours / reference` (> 1: ours faster).
    pub value: f64,
    /// The target (`value ≥ target`; 0: context, no target).
    pub target: f64,
    /// For a ratio measured in alternating pairs: the smallest and the
    /// largest per-pair ratio (`value` is their median).
    pub spread: Option<(f64, f64)>,
}

pub(crate) fn target_text(target: f64) -> String {
    if target == 0.0 {
        "-".to_string()
    } else {
        format!("≥ {target:.2}")
    }
}

pub(crate) fn verdict(r: &Ratio) -> &'static str {
    if r.target == 0.0 {
        "(context)"
    } else if r.value >= r.target {
        "holds"
    } else {
        "MISSED"
    }
}

pub(crate) fn ratio(what: String, ours: f64, reference: f64, target: f64) -> Ratio {
    Ratio {
        what,
        ours,
        reference,
        value: ours / reference,
        target,
        spread: None,
    }
}

/// The ratio line of a [`Pair`] timed A B A B (A ours, B the reference):
/// the median of the per-pair ratios, with their range.
pub(crate) fn pair_ratio(what: String, pair: &Pair, target: f64) -> Ratio {
    Ratio {
        what,
        ours: pair.a.0,
        reference: pair.b.0,
        value: pair.ratio,
        target,
        spread: Some(pair.spread),
    }
}
