//! Shape builders: the links, bends, tets, volumes and tethers of ropes,
//! loops, cloths, tet blocks, icospheres and any triangle or tet mesh,
//! written into caller-owned slices (no allocation).
//!
//! One argument order everywhere: the rest positions first (m), then the
//! topology (triangles, tets, anchors), then the compliance (m/N), then
//! scratch and the output. Every builder validates its input before it
//! writes, and returns how many it wrote.

mod bends;
mod links;
mod meshes;
mod tethers;
mod volumes;

pub use bends::{bends_count_for_cloth, bends_for_cloth, bends_for_triangles};
pub(crate) use links::{build, Shape};
pub use links::{closed_loop, cloth, cloth_link_count, rope};
pub use meshes::{links_for_tets, links_for_triangles, tets_for_mesh};
pub use tethers::tethers_along_links;
pub use volumes::{
    enclosed_volume, icosphere, icosphere_counts, mesh_volume, surface_links, tet_block,
    tet_block_counts, tet_block_link_count, tet_block_links, tet_rest_volumes, tet_volume,
    MeshParticles,
};
