//! The house rules of `src/`, checked on the source text: the floors
//! import only downwards, `real.rs` and `fenv.rs` import nothing from the
//! crate, nothing outside `src/ffi/` uses the C layer, λ of systems is reset
//! in exactly one function, and no hand-written file is over 1,000 lines.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read src/")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `(path relative to src/, the file's lines without comments)`.
fn sources() -> Vec<(String, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = fs::read_to_string(&p).expect("read a source file");
            let code = text
                .lines()
                .map(|l| match l.find("//") {
                    Some(k) => l[..k].to_string(),
                    None => l.to_string(),
                })
                .collect();
            (rel, code)
        })
        .collect()
}

/// The floor of a top-level module: lower floors may not import higher ones.
fn floor(module: &str) -> Option<u32> {
    Some(match module {
        "real" | "fenv" | "error" | "version" | "math" => 0,
        "constraint" => 1,
        "solver" | "system" => 2,
        "step" | "colored" | "coloring" => 3,
        "ffi" | "ffi_system" | "ffi_system_fns" | "ffi_step" | "ffi_colored" => 4,
        _ => return None,
    })
}

/// The top-level module a file belongs to (`None` for `lib.rs`).
fn module_of(rel: &str) -> Option<&str> {
    if rel == "lib.rs" {
        return None;
    }
    Some(rel.split('/').next().unwrap_or(rel).trim_end_matches(".rs"))
}

/// Every `crate::name` a line of code refers to (lower-case names only:
/// modules, not the root re-exports of types).
fn crate_refs(line: &str) -> Vec<&str> {
    line.match_indices("crate::")
        .filter_map(|(k, _)| {
            let rest = &line[k + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..end];
            name.starts_with(|c: char| c.is_ascii_lowercase())
                .then_some(name)
        })
        .collect()
}

#[test]
#[cfg_attr(miri, ignore)] // reads files: Miri's isolation forbids it
fn floors_import_only_downwards() {
    let mut violations = Vec::new();
    for (rel, code) in sources() {
        let Some(module) = module_of(&rel) else {
            continue;
        };
        let own = floor(module).unwrap_or_else(|| panic!("{rel}: unknown room {module}"));
        for (n, line) in code.iter().enumerate() {
            for name in crate_refs(line) {
                // Names that are no module are root re-exports of functions
                // (`crate::rope`): their modules are checked where defined.
                let Some(theirs) = floor(name) else {
                    continue;
                };
                if theirs > own && module != name {
                    violations.push(format!("{rel}:{}: {module} imports crate::{name}", n + 1));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

/// `math` (the vector helpers and the deterministic atan2) is a leaf over
/// `real`: the kinds and the frame share it, and it imports nothing else.
#[test]
#[cfg_attr(miri, ignore)]
fn math_imports_only_real() {
    let mut found = Vec::new();
    for (rel, code) in sources() {
        if module_of(&rel) != Some("math") {
            continue;
        }
        found.push(rel.clone());
        for (n, line) in code.iter().enumerate() {
            for name in crate_refs(line) {
                assert!(
                    name == "real" || name == "math",
                    "{rel}:{}: math imports crate::{name}",
                    n + 1
                );
            }
        }
    }
    assert!(
        found.len() >= 2,
        "src/math.rs and src/math/atan2.rs: {found:?}"
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn real_imports_nothing_from_the_crate() {
    // `fenv.rs` (the floating-point environment query) is as self-contained.
    for file in ["real.rs", "fenv.rs"] {
        let (_, code) = sources()
            .into_iter()
            .find(|(rel, _)| rel == file)
            .unwrap_or_else(|| panic!("src/{file}"));
        let refs: Vec<_> = code.iter().filter(|l| l.contains("crate::")).collect();
        assert!(refs.is_empty(), "{file}: {refs:#?}");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn nothing_outside_ffi_uses_the_c_layer() {
    let mut users = Vec::new();
    for (rel, code) in sources() {
        if rel.starts_with("ffi/") || rel == "lib.rs" {
            continue;
        }
        for (n, line) in code.iter().enumerate() {
            if line.contains("crate::ffi") || line.contains("ffi::") {
                users.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(users.is_empty(), "{users:#?}");
}

#[test]
#[cfg_attr(miri, ignore)]
fn lambda_of_systems_is_reset_in_one_function() {
    // Assignments of zero to a multiplier, anywhere but the 1D seed solver
    // (`constraint/seed.rs` and its C wrapper `ffi/distance.rs`, which keep
    // their own SPEC-exact lifecycle).
    let patterns = [
        "lambda = T::ZERO",
        "lambda.fill(",
        "multiplier() = T::ZERO",
        "multiplier().fill(",
        "set_lambda(T::ZERO",
        "*ol = T::ZERO",
    ];
    let mut resets = Vec::new();
    for (rel, code) in sources() {
        if rel == "constraint/seed.rs" || rel == "ffi/distance.rs" {
            continue;
        }
        for (n, line) in code.iter().enumerate() {
            if patterns.iter().any(|p| line.contains(p)) {
                resets.push(format!("{rel}:{}", n + 1));
            }
        }
    }
    assert_eq!(resets.len(), 1, "{resets:#?}");
    assert!(resets[0].starts_with("solver/substep.rs:"), "{resets:?}");
}

#[test]
#[cfg_attr(miri, ignore)]
fn hand_written_files_stay_under_a_thousand_lines() {
    let big: Vec<_> = sources()
        .into_iter()
        .filter(|(rel, code)| rel != "ffi/generated.rs" && code.len() > 1_000)
        .map(|(rel, code)| format!("{rel}: {} lines", code.len()))
        .collect();
    assert!(big.is_empty(), "{big:#?}");
}
