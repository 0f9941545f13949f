//! Closed-mesh volume (pressure): `C = V − k·V₀` over a closed triangle
//! mesh.
//!
//! (Skeleton: the helper implementing issue 15's pressure fills in the
//! header — C, ∇C, α̃ = α/h², units, λ bound, paper — and the sweep.)

use super::{Fault, Outcome};
use crate::real::Real;

/// One closed-mesh volume constraint over the triangles
/// `first_triangle .. first_triangle + triangle_count` of its group's
/// triangle array.
///
/// `#[repr(C)]`: this struct *is* the C type `XpbdMeshVolume`
/// (`MeshVolume<f64>`) and `XpbdMeshVolumeF32` (`MeshVolume<f32>`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVolume<T> {
    /// First triangle of this mesh in the group's triangle array.
    pub first_triangle: u32,
    /// Number of triangles (≥ 4 for a closed mesh).
    pub triangle_count: u32,
    /// Rest volume V₀ (m³), finite and > 0.
    pub rest_volume: T,
    /// Pressure (inflation) factor k: the target volume is `k·V₀`; finite
    /// and > 0 (1 keeps the rest volume).
    pub pressure: T,
    /// Compliance α (m⁶/J = m³/N·… of `C = V − kV₀`: m³/Pa·… see the
    /// module), finite and ≥ 0.
    pub compliance: T,
    /// Accumulated multiplier λ of the current substep.
    pub lambda: T,
}

/// The closed meshes of a system: their constraints, the triangle array
/// they index (particle indices, counter-clockwise seen from outside) and
/// a gradient scratch of one `[T; 3]` per particle (the library's during a
/// sweep).
#[derive(Debug, Default)]
pub struct MeshVolumes<'a, T> {
    /// The volume constraints.
    pub volumes: &'a mut [MeshVolume<T>],
    /// Triangles `[a, b, c]` (particle indices).
    pub triangles: &'a [[u32; 3]],
    /// Scratch, one entry per particle (or empty when `volumes` is).
    pub scratch: &'a mut [[T; 3]],
}

impl<T: Real> MeshVolume<T> {
    /// Checks this constraint's own parameters against its group.
    pub(crate) fn check(
        &self,
        triangles: &[[u32; 3]],
        w: &[T],
        h2: T,
    ) -> Result<(), super::Invalid> {
        let _ = (triangles, w);
        if !self.rest_volume.is_finite() || self.rest_volume <= T::ZERO {
            return Err(super::Invalid::RestValue);
        }
        if !self.pressure.is_finite() || self.pressure <= T::ZERO {
            return Err(super::Invalid::RestValue);
        }
        super::check_compliance(self.compliance, h2)
    }
}

/// Solves one mesh: evaluates `C`, its gradient (into `scratch`), the one
/// [`update`](super::update), checks every corrected position finite and
/// commits all or nothing (skeleton: issue 15).
pub(crate) fn solve_mesh<T: Real, const D: usize>(
    mesh: &mut MeshVolume<T>,
    triangles: &[[u32; 3]],
    scratch: &mut [[T; 3]],
    positions: &mut [[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let _ = (mesh, triangles, scratch, positions, inverse_masses, h2);
    Ok(Outcome::Static)
}

/// What [`solve_mesh`] would count, writing nothing (skeleton: issue 15).
pub(crate) fn visit_mesh<T: Real, const D: usize>(
    mesh: &MeshVolume<T>,
    triangles: &[[u32; 3]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    h2: T,
) -> Result<Outcome<T>, Fault> {
    let _ = (mesh, triangles, positions, inverse_masses, h2);
    Ok(Outcome::Static)
}
