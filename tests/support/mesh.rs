//! Shared by `tests/pressure.rs` and `tests/pressure_checks.rs`: a
//! geodesic sphere and the meshes' particle lists.
#![allow(dead_code)]

use xpbd::{icosphere, icosphere_counts, MeshVolume, Real};

/// Every mesh's particle list (its triangles' particles once each, in
/// first-appearance order), concatenated; each mesh's `first_particle` and
/// `particle_count` set to name its own.
pub fn with_list<T: Real>(tris: &[[u32; 3]], meshes: &mut [MeshVolume<T>]) -> Vec<u32> {
    let mut all = vec![];
    for m in meshes {
        let first = m.first_triangle as usize;
        let count = m.triangle_count as usize;
        let start = all.len();
        let own = first
            .checked_add(count)
            .and_then(|end| tris.get(first..end));
        for &k in own.unwrap_or(&[]).iter().flatten() {
            if !all[start..].contains(&k) {
                all.push(k);
            }
        }
        m.first_particle = start as u32;
        m.particle_count = (all.len() - start) as u32;
    }
    all
}

/// A geodesic sphere: positions and triangles.
pub fn sphere(frequency: usize, radius: f64, center: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let (np, nt) = icosphere_counts(frequency).unwrap();
    let mut x = vec![[0.0; 3]; np];
    let mut tris = vec![[0; 3]; nt];
    assert_eq!(
        icosphere(frequency, radius, center, &mut x, &mut tris),
        Ok((np, nt))
    );
    (x, tris)
}
