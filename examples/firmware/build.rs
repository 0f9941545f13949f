//! Puts memory.x where the cortex-m-rt linker script finds it, and links the
//! binary with cortex-m-rt's `link.x` (here rather than in
//! `.cargo/config.toml`, so `cargo qemu-test` from the repository root, where
//! this crate's config is not read, links the same image).
fn main() {
    println!("cargo:rustc-link-search={}", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
