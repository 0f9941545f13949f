//! Closed-mesh volume constraints (`MeshVolume`) rejected by a substep's
//! validation, naming the mesh and writing nothing: bad parameters, a
//! short scratch, forged particle lists, and the order of those checks
//! against the other groups'.

#[path = "support/mesh.rs"]
mod mesh;
use mesh::{sphere, with_list};
use xpbd::{
    enclosed_volume, Attachment, Constraints, Link, MeshVolume, MeshVolumes, System, SystemError,
};

#[test]
fn invalid_meshes_are_rejected_naming_them_and_nothing_is_written() {
    let (x0, mut tris) = sphere(1, 1.0, [0.0; 3]);
    // 20: the same particle twice; 21..24: good; 24: an index out of range.
    let extra = [[0, 1, 1], tris[0], tris[1], tris[2], [0, 1, 12]];
    tris.extend(extra);
    let v0 = enclosed_volume(&x0, &tris[..20]).unwrap();
    let good = MeshVolume::new([0, 20], [0, 0], v0, 1.0, 0.0);
    let m = |first, count, rest, k, c| MeshVolume::new([first, count], [0, 0], rest, k, c);
    let cases: Vec<(MeshVolume<f64>, SystemError)> = vec![
        (
            m(21, 4, v0, 1.0, 0.0),
            SystemError::IndexOutOfRange { constraint: 2 },
        ),
        (
            m(20, 4, v0, 1.0, 0.0),
            SystemError::SameParticle { constraint: 2 },
        ),
        (
            m(22, 4, v0, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(u32::MAX, 2, v0, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 3, v0, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, 0.0, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, -v0, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, f64::NAN, 1.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, v0, 0.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, v0, f64::INFINITY, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, f64::MAX, 2.0, 0.0),
            SystemError::InvalidRestValue { constraint: 2 },
        ),
        (
            m(0, 20, v0, 1.0, -1.0),
            SystemError::InvalidCompliance { constraint: 2 },
        ),
        (
            m(0, 20, v0, 1.0, f64::MAX),
            SystemError::UnrepresentableScale { constraint: 2 },
        ),
    ];
    for (bad, error) in cases {
        let mut x = x0.clone();
        let mut links = [Link::new(0, 1, 1.0, 0.0)];
        let mut volumes = [good, bad];
        volumes[0].lambda = 0.5; // left from a previous substep
        let mut scratch = vec![[0.0; 3]; 12];
        let particles = with_list(&tris, &mut volumes);
        let mut system = System::new(&mut x, &[1.0; 12], &mut links)
            .unwrap()
            .with_constraints(Constraints {
                meshes: MeshVolumes {
                    volumes: &mut volumes,
                    triangles: &tris,
                    particles: &particles,
                    scratch: &mut scratch,
                },
                ..Default::default()
            });
        assert_eq!(system.begin_substep(0.01).unwrap_err(), error, "{bad:?}");
        assert_eq!(x, x0);
        assert_eq!(volumes[0].lambda.to_bits(), 0.5_f64.to_bits());
    }
    // A scratch shorter than the particles.
    let mut x = x0.clone();
    let mut volumes = [good];
    let mut scratch = vec![[0.0; 3]; 11];
    let particles = with_list(&tris, &mut volumes);
    let mut system = System::new(&mut x, &[1.0; 12], &mut [])
        .unwrap()
        .with_constraints(Constraints {
            meshes: MeshVolumes {
                volumes: &mut volumes,
                triangles: &tris,
                particles: &particles,
                scratch: &mut scratch,
            },
            ..Default::default()
        });
    assert_eq!(
        system.begin_substep(0.01).unwrap_err(),
        SystemError::CapacityTooSmall { needed: 12 }
    );
    // Forged particle lists: each rejected naming the mesh, nothing written.
    let mut good_volumes = [good];
    let list = with_list(&tris, &mut good_volumes);
    let forge = |f: &dyn Fn(&mut Vec<u32>, &mut MeshVolume<f64>)| {
        let (mut l, mut m) = (list.clone(), good_volumes[0]);
        f(&mut l, &mut m);
        (l, m)
    };
    let forged = [
        (
            forge(&|l, _| l[5] = 12),
            SystemError::IndexOutOfRange { constraint: 1 },
        ),
        (
            forge(&|l, _| l[5] = l[2]),
            SystemError::SameParticle { constraint: 1 },
        ),
        (
            forge(&|l, _| l.swap(3, 4)),
            SystemError::InvalidRestValue { constraint: 1 },
        ),
        (
            forge(&|_, m| m.particle_count = 11),
            SystemError::InvalidRestValue { constraint: 1 },
        ),
        (
            forge(&|_, m| m.first_particle = 1),
            SystemError::InvalidRestValue { constraint: 1 },
        ),
    ];
    for ((particles, mesh), error) in forged {
        let mut x = x0.clone();
        let mut links = [Link::new(0, 1, 1.0, 0.0)];
        let mut volumes = [mesh];
        volumes[0].lambda = 0.5;
        let mut scratch = vec![[0.0; 3]; 12];
        let mut system = System::new(&mut x, &[1.0; 12], &mut links)
            .unwrap()
            .with_constraints(Constraints {
                meshes: MeshVolumes {
                    volumes: &mut volumes,
                    triangles: &tris,
                    particles: &particles,
                    scratch: &mut scratch,
                },
                ..Default::default()
            });
        let got = system.begin_substep(0.01).unwrap_err();
        assert_eq!(got, error, "{particles:?} {mesh:?}");
        assert_eq!(x, x0);
        assert_eq!(volumes[0].lambda.to_bits(), 0.5_f64.to_bits());
    }
    // The order of the checks: every instance's own parameters (the
    // attachments' too) before the scratch's length, the scratch's length
    // before the lists (the one check that writes the scratch). No link:
    // the mesh is constraint 0, the attachment 1.
    let (forged, _) = forge(&|l, _| l.swap(3, 4));
    let bad_mesh = m(0, 3, v0, 1.0, 0.0);
    let listed = good_volumes[0];
    let order = [
        (
            12,
            bad_mesh,
            1.0,
            SystemError::InvalidRestValue { constraint: 0 },
        ),
        (
            12,
            listed,
            -1.0,
            SystemError::InvalidCompliance { constraint: 1 },
        ),
        (
            11,
            bad_mesh,
            1.0,
            SystemError::InvalidRestValue { constraint: 0 },
        ),
        (
            11,
            listed,
            -1.0,
            SystemError::InvalidCompliance { constraint: 1 },
        ),
        (
            11,
            listed,
            1.0,
            SystemError::CapacityTooSmall { needed: 12 },
        ),
        (
            12,
            listed,
            1.0,
            SystemError::InvalidRestValue { constraint: 0 },
        ),
    ];
    for (n, mesh, compliance, error) in order {
        let mut x = x0.clone();
        let mut volumes = [mesh];
        let mut scratch = vec![[0.0; 3]; n];
        let mut attachments = [Attachment::new(0, x0[0], compliance)];
        let mut system = System::new(&mut x, &[1.0; 12], &mut [])
            .unwrap()
            .with_constraints(Constraints {
                meshes: MeshVolumes {
                    volumes: &mut volumes,
                    triangles: &tris,
                    particles: &forged,
                    scratch: &mut scratch,
                },
                attachments: &mut attachments,
                ..Default::default()
            });
        let got = system.begin_substep(0.01).unwrap_err();
        assert_eq!(got, error, "scratch {n}, {mesh:?}, attachment {compliance}");
        assert_eq!(x, x0);
    }
}
