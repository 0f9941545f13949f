//! The house rules of `src/`, checked on the source text: the floors
//! import only downwards, `real.rs` and `fenv.rs` import nothing from the
//! crate, nothing outside `src/ffi/` uses the C layer, λ of systems is reset
//! in exactly one function, no hand-written file is over 1,000 lines; and
//! the kinds table (`src/solver/kinds.rs`): a kind is named only in its
//! files, the table, the C layer and the builders, λ is written only by the
//! core and the kernels the table declares, Δλ is spelled only in the
//! shared update, the seed and the SIMD links, and the C lists match it.

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
        "solver" => 2,
        "build" | "step" | "colored" => 3,
        "ffi" => 4,
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

/// One line of the kinds table (`src/solver/kinds.rs`).
#[derive(Debug)]
struct Kind {
    item: String,
    c_item: String,
    walk: String,
    module: String,
}

/// The lines of the kinds table: `field: Group, Item, CItem, walk(module);`
/// inside `macro_rules! group_kinds`.
fn kinds_table() -> Vec<Kind> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/solver/kinds.rs");
    let text = fs::read_to_string(path).expect("read src/solver/kinds.rs");
    let start = text
        .find("macro_rules! group_kinds")
        .expect("the table macro");
    let body = &text[start..];
    let body = &body[..body.find("pub(crate) use group_kinds").expect("its end")];
    let kinds: Vec<Kind> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.ends_with(");") && l.contains(':'))
        .map(|l| {
            let (_, rest) = l.split_once(':').expect("field:");
            let parts: Vec<&str> = rest
                .trim_end_matches(';')
                .split(',')
                .map(str::trim)
                .collect();
            assert_eq!(parts.len(), 4, "{l}");
            let (walk, module) = parts[3]
                .trim_end_matches(')')
                .split_once('(')
                .expect("walk(module)");
            Kind {
                item: parts[1].to_string(),
                c_item: parts[2].to_string(),
                walk: walk.to_string(),
                module: module.to_string(),
            }
        })
        .collect();
    assert!(kinds.len() >= 5, "{kinds:#?}");
    kinds
}

/// The code of a file before its first `#[cfg(test)]` (unit tests are
/// tests), and none for `tests.rs` files.
fn library_code(rel: &str, code: &[String]) -> Vec<String> {
    if rel.ends_with("/tests.rs") {
        return Vec::new();
    }
    code.iter()
        .take_while(|l| !l.trim().starts_with("#[cfg(test)]"))
        .cloned()
        .collect()
}

/// Whether `word` occurs in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(k, _)| {
        let before = line[..k].chars().next_back();
        let after = line[k + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Whether `rel` is one of the files of constraint module `module`.
fn own_file(rel: &str, module: &str) -> bool {
    rel == format!("constraint/{module}.rs") || rel.starts_with(&format!("constraint/{module}/"))
}

/// The files besides a kind's own, the table, the C layer (`ffi/`: its C
/// types, C builders and generated wrappers) and the builders
/// (`build/`) that still name group kinds, each with why. A
/// ratchet: a new file naming a kind fails, and so does an entry no
/// longer needed (remove it).
const KIND_NAME_EXCEPTIONS: [(&str, &str); 6] = [
    ("lib.rs", "the public re-exports"),
    (
        "constraint/mod.rs",
        "the crate re-exports beside the `pub mod` lines",
    ),
    (
        "solver/substep.rs",
        "the `Multiplier` impls of the one λ reset",
    ),
    (
        "solver/groups.rs",
        "the bare-metal shared loops' `Instances`/`Solvable` impls",
    ),
    (
        "colored/coloring.rs",
        "the `Instance` impls (particles of an instance)",
    ),
    ("colored/groups.rs", "`RawGroups`' fields"),
];

#[test]
#[cfg_attr(miri, ignore)]
fn a_kind_is_named_only_in_its_files_the_table_the_c_types_and_the_builders() {
    let kinds = kinds_table();
    let mut stray = Vec::new();
    let mut used = Vec::new();
    for (rel, code) in sources() {
        if rel == "solver/kinds.rs" || rel.starts_with("ffi/") || rel.starts_with("build/") {
            continue;
        }
        for kind in &kinds {
            if own_file(&rel, &kind.module) {
                continue;
            }
            let named = library_code(&rel, &code)
                .iter()
                .any(|l| has_word(l, &kind.item));
            if !named {
                continue;
            }
            if KIND_NAME_EXCEPTIONS.iter().any(|(f, _)| *f == rel) {
                used.push(rel.clone());
            } else {
                stray.push(format!("{rel} names {}", kind.item));
            }
        }
    }
    assert!(stray.is_empty(), "{stray:#?}");
    for (f, why) in KIND_NAME_EXCEPTIONS {
        assert!(
            used.iter().any(|u| u == f),
            "{f} ({why}) no longer names a kind: drop it from the list"
        );
    }
}

/// The left side of an assignment (`=`, `+=`, …) on a line, if any (not a
/// `let`, nor a comparison).
fn assigned(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.starts_with("let ") || t.starts_with("fn ") || t.starts_with("pub") {
        return None;
    }
    for op in [" = ", " += ", " -= "] {
        if let Some(k) = t.find(op) {
            let lhs = &t[..k];
            return (!lhs.contains("let ")).then_some(lhs);
        }
    }
    None
}

#[test]
#[cfg_attr(miri, ignore)]
fn lambda_is_written_only_by_the_core_and_the_declared_kernels() {
    // Direct stores: the core (`constraint/mod.rs`), the accessors
    // (`set_lambda`), the 1D seed solver and its C wrapper, the SIMD link
    // kernels. Every other λ write goes through `store_lambda`, called
    // only from the modules the kinds table declares with a walk of their
    // own (fast kernels, meshes), from the lagged walk's one solve for
    // its kinds (`lagged`: attachments, skinned constraints) and from the
    // links' and collider contacts' fast kernels (`distance`, `contact`).
    let kinds = kinds_table();
    let mut callers: Vec<String> = kinds.iter().map(|k| k.module.clone()).collect();
    callers.extend(["distance", "contact", "lagged"].map(String::from));
    let direct = |rel: &str| {
        rel == "constraint/mod.rs"
            || rel == "constraint/seed.rs"
            || rel == "ffi/distance.rs"
            || rel.starts_with("colored/kernel/")
            // Particle-pair contacts (solved on a copy, λ copied back) and
            // the pair coloring's scratch use of λ: not yet through
            // `store_lambda` (step/ is being rewritten elsewhere).
            || rel == "step/colored_pairs.rs"
    };
    let mut writes = Vec::new();
    for (rel, code) in sources() {
        let code = library_code(&rel, &code);
        for (n, line) in code.iter().enumerate() {
            let accessor = line.trim() == "self.lambda = lambda;"
                && n > 0
                && code[n - 1].contains("fn set_lambda");
            if let Some(lhs) = assigned(line) {
                if lhs.contains("lambda") && !accessor && !direct(&rel) {
                    writes.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
            // The frame's link pass is the links' kernel of the frame.
            if line.contains("store_lambda(")
                && !line.contains("fn store_lambda")
                && rel != "step/link_pass.rs"
                && !callers.iter().any(|m| own_file(&rel, m))
            {
                writes.push(format!("{rel}:{}: store_lambda outside the table", n + 1));
            }
            // The shared loops store `commit`'s λ through the accessor.
            let shared_loop = rel == "solver/groups.rs" || rel == "colored/groups.rs";
            if line.contains("set_lambda(")
                && !line.contains("fn set_lambda")
                && rel != "constraint/mod.rs"
                && !shared_loop
            {
                writes.push(format!("{rel}:{}: set_lambda outside the core", n + 1));
            }
        }
    }
    assert!(writes.is_empty(), "{writes:#?}");
    // Every declared walk of its own really stores λ (or the table lies);
    // the lagged kinds' through `constraint/lagged.rs`.
    for kind in kinds.iter().filter(|k| k.walk != "fast_pairs") {
        let module = if kind.walk == "lagged" {
            "lagged"
        } else {
            kind.module.as_str()
        };
        let stores = sources()
            .into_iter()
            .filter(|(rel, _)| own_file(rel, module))
            .any(|(_, code)| code.iter().any(|l| l.contains("store_lambda(")));
        assert!(stores, "{kind:?} declares a kernel that never stores λ");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_multiplier_step_is_written_only_in_the_shared_update_the_seed_and_the_simd_links() {
    // The numerator −C − α̃λ of Δλ = (−C − α̃λ)/(W + α̃), in any spelling.
    let spellings = [
        "alpha * lambda",
        "lambda * alpha",
        "mul2(alpha, lambda)",
        "mul(alpha, lambda)",
        "alpha.mul(lambda)",
        "(weight + alpha)",
        "add2(weight, alpha)",
    ];
    let mut found = Vec::new();
    for (rel, code) in sources() {
        // The frame's link pass (`step/link_pass.rs`) multiplies by the
        // per-frame g = 1/(W + α̃) instead of dividing: the frame engine's
        // kernel, as the SIMD links are the colored system's.
        let allowed = rel == "constraint/mod.rs"
            || rel == "constraint/seed.rs"
            || rel == "step/link_pass.rs"
            || rel.starts_with("colored/kernel/");
        for (n, line) in library_code(&rel, &code).iter().enumerate() {
            if !allowed && spellings.iter().any(|s| line.contains(s)) {
                found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
#[cfg_attr(miri, ignore)]
fn the_c_kinds_lists_match_the_kinds_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let cbindgen = read("cbindgen.toml");
    let layouts = read("ffi-tests/build.rs");
    let types = read("src/ffi/types.rs");
    let mut missing = Vec::new();
    for k in kinds_table() {
        let (item, c) = (&k.item, &k.c_item);
        let wanted = [
            (
                "cbindgen.toml",
                &cbindgen,
                format!("\"{item}_f64\" = \"{c}\""),
            ),
            (
                "cbindgen.toml",
                &cbindgen,
                format!("\"{item}_f32\" = \"{c}F32\""),
            ),
            (
                "cbindgen.toml exclude",
                &cbindgen,
                format!("\"{c}\", \"{c}F32\""),
            ),
            (
                "ffi-tests/build.rs",
                &layouts,
                format!("layout::<ffi::{c}>(\"{c}\")"),
            ),
            (
                "ffi-tests/build.rs",
                &layouts,
                format!("layout::<ffi::{c}F32>(\"{c}F32\")"),
            ),
            (
                "src/ffi/types.rs",
                &types,
                format!("pub type {c} = {item}<f64>;"),
            ),
            (
                "src/ffi/types.rs",
                &types,
                format!("pub type {c}F32 = {item}<f32>;"),
            ),
        ];
        for (file, text, line) in wanted {
            if !text.contains(&line) {
                missing.push(format!("{file}: {line}"));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}
