//! `cargo run -p xpbd-ffi-gen`: rewrites `src/ffi/generated.rs` from the
//! templates in this crate's library.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join(xpbd_ffi_gen::OUTPUT);
    std::fs::write(&path, xpbd_ffi_gen::generate())
        .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    println!("wrote {}", path.display());
}
