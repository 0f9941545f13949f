//! Character cloth (issue 35) through the Rust API, one test program:
//! the skinned constraints (max distance and backstop, `skin`), the
//! local-space simulation with inertia scaling (`local_space`) and the
//! wind (drag and lift per triangle, `wind`). Each module says what it
//! checks.

#[path = "support/coloring.rs"]
mod coloring;
#[path = "character_cloth/local_space.rs"]
mod local_space;
#[path = "character_cloth/skin.rs"]
mod skin;
#[path = "character_cloth/wind.rs"]
mod wind;
