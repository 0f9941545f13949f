//! Every name include/xpbd.h declares or defines carries the xpbd prefix:
//! `XPBD_` for macros and enumerators, `Xpbd` for struct/union/enum tags
//! and typedefs, `xpbd_` for functions and variables.
//!
//! The rules (and their exemptions) are those of `.ci/header-names.sh`,
//! which documents them; [`unprefixed`] implements them again in Rust so
//! that `cargo test --workspace` catches an unprefixed name without the CI
//! script. Both read the header the same way (a small C lexer, then the
//! declarations token by token) and report the same lines;
//! `script_and_test_agree` checks that on a sample.

use std::collections::HashSet;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Macro,
    Enumerator,
    Tag,
    Typedef,
    Function,
    Variable,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Macro => "macro",
            Kind::Enumerator => "enumerator",
            Kind::Tag => "tag",
            Kind::Typedef => "typedef",
            Kind::Function => "function",
            Kind::Variable => "variable",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Kind::Macro | Kind::Enumerator => "XPBD_",
            Kind::Tag | Kind::Typedef => "Xpbd",
            Kind::Function | Kind::Variable => "xpbd_",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// `extern "C" { ... }`: file scope continues inside.
    Extern,
    Enum,
    Block,
}

/// The names a header declares, checked as `.ci/header-names.sh` does.
#[derive(Default)]
struct Checker {
    file: String,
    seen: HashSet<(Kind, String)>,
    bad: Vec<String>,
    functions: usize,
    macros: HashSet<String>,
    in_comment: bool,
    quiet: bool,
    prev: String,
    enum_next: bool,
    stack: Vec<Scope>,
    depth: usize,
    expect: bool,
    pd: i32,
    /// The file-scope statement so far: token, paren depth, line.
    st: Vec<(String, i32, usize)>,
    typedef_stmt: bool,
}

fn is_ident(t: &str) -> bool {
    let b = t.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

fn is_tag_keyword(t: &str) -> bool {
    matches!(t, "struct" | "union" | "enum")
}

impl Checker {
    fn check(&mut self, kind: Kind, name: &str, line: usize) {
        if kind == Kind::Function {
            self.functions += 1;
        }
        if name.starts_with(kind.prefix()) || !self.seen.insert((kind, name.to_string())) {
            return;
        }
        self.bad.push(format!(
            "{}:{line}: {} {name} lacks the {} prefix",
            self.file,
            kind.word(),
            kind.prefix()
        ));
    }

    /// A preprocessor directive (continuations joined): only `#define`
    /// names one.
    fn directive(&mut self, text: &str, line: usize) {
        let rest = text.trim_start_matches([' ', '\t']);
        let Some(rest) = rest.strip_prefix('#') else {
            return;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let Some(rest) = rest.strip_prefix("define") else {
            return;
        };
        if !rest.starts_with([' ', '\t']) {
            return;
        }
        let rest = rest.trim_start_matches([' ', '\t']);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if is_ident(name) {
            self.macros.insert(name.to_string());
            self.check(Kind::Macro, name, line);
        }
    }

    /// The file-scope statement in `self.st` has ended with `;`.
    fn statement(&mut self) {
        let st = std::mem::take(&mut self.st);
        let tok = |k: usize| st.get(k).map_or("", |t| t.0.as_str());
        if let Some(first) = st.iter().position(|t| t.0 == "(" && t.1 == 0) {
            let line = st[first].2;
            let pointer = tok(first + 1) == "*" && is_ident(tok(first + 2));
            let name = if pointer {
                tok(first + 2)
            } else if first > 0 && is_ident(tok(first - 1)) {
                tok(first - 1)
            } else {
                return;
            };
            if self.typedef_stmt {
                self.check(Kind::Typedef, name, line);
            } else if pointer {
                self.check(Kind::Variable, name, line);
            } else if !self.macros.contains(name) {
                self.check(Kind::Function, name, line);
            }
            return;
        }
        for k in (0..st.len()).rev() {
            let (t, pd, line) = (&st[k].0, st[k].1, st[k].2);
            if pd != 0 || !is_ident(t) {
                continue;
            }
            if (k > 0 && is_tag_keyword(tok(k - 1))) || is_tag_keyword(t) || t == "typedef" {
                return;
            }
            let kind = if self.typedef_stmt {
                Kind::Typedef
            } else {
                Kind::Variable
            };
            self.check(kind, t, line);
            return;
        }
    }

    fn token(&mut self, t: &str, line: usize) {
        if self.quiet {
            return;
        }
        if is_ident(t) && is_tag_keyword(&self.prev) {
            self.check(Kind::Tag, t, line);
        }
        if t == "enum" {
            self.enum_next = true;
        }
        if t == "{" {
            if self.depth == 0
                && self.st.len() == 2
                && self.st[0].0 == "extern"
                && self.st[1].0 == "\""
            {
                self.stack.push(Scope::Extern);
                self.st.clear();
            } else {
                let scope = if self.enum_next {
                    Scope::Enum
                } else {
                    Scope::Block
                };
                self.stack.push(scope);
                self.depth += 1;
                self.expect = scope == Scope::Enum;
            }
            self.enum_next = false;
            self.prev = t.to_string();
            return;
        }
        if t == "}" {
            if self.stack.pop().is_some_and(|s| s != Scope::Extern) {
                self.depth -= 1;
                if self.depth == 0 {
                    // The declarators follow the body.
                    self.st.clear();
                }
            }
            self.enum_next = false;
            self.prev = t.to_string();
            return;
        }
        if t == ";" {
            self.enum_next = false;
        }
        if self.stack.last() == Some(&Scope::Enum) && self.pd == 0 {
            if self.expect && is_ident(t) {
                self.check(Kind::Enumerator, t, line);
                self.expect = false;
            }
            if t == "," {
                self.expect = true;
            }
        }
        if self.depth == 0 {
            if t == ";" && self.pd == 0 {
                self.statement();
                self.typedef_stmt = false;
            } else {
                if self.st.is_empty() && t == "typedef" {
                    self.typedef_stmt = true;
                }
                self.st.push((t.to_string(), self.pd, line));
            }
        }
        if t == "(" {
            self.pd += 1;
        }
        if t == ")" {
            self.pd -= 1;
        }
        self.prev = t.to_string();
    }

    /// The code of one line (or of a directive, quietly, for a comment it
    /// opens and leaves open).
    fn lex(&mut self, s: &str, line: usize) {
        let b = s.as_bytes();
        let n = b.len();
        let mut i = 0;
        while i < n {
            if self.in_comment {
                match s[i..].find("*/") {
                    None => return,
                    Some(j) => {
                        i += j + 2;
                        self.in_comment = false;
                        continue;
                    }
                }
            }
            let (c, d) = (b[i], b.get(i + 1).copied().unwrap_or(0));
            if c == b'/' && d == b'*' {
                self.in_comment = true;
                i += 2;
            } else if c == b'/' && d == b'/' {
                return;
            } else if c == b'"' || c == b'\'' {
                i += 1;
                while i < n && b[i] != c {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                self.token("\"", line);
                i += 1;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let j = (i..n)
                    .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_'))
                    .unwrap_or(n);
                self.token(&s[i..j], line);
                i = j;
            } else if c.is_ascii_digit() {
                let j = (i..n)
                    .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.'))
                    .unwrap_or(n);
                self.token("0", line);
                i = j;
            } else if matches!(c, b' ' | b'\t' | b'\r') {
                i += 1;
            } else {
                let len = s[i..].chars().next().map_or(1, char::len_utf8);
                self.token(&s[i..i + len], line);
                i += len;
            }
        }
    }

    fn directive_then_lex(&mut self, text: &str, line: usize) {
        self.directive(text, line);
        self.quiet = true;
        self.lex(text, line);
        self.quiet = false;
    }
}

/// The report lines of `.ci/header-names.sh` for `header` (named `file` in
/// them): each unprefixed name once, at its first line. Panics when the
/// text declares no function (not a header to check), as the script fails.
fn unprefixed(file: &str, header: &str) -> Vec<String> {
    let mut c = Checker {
        file: file.to_string(),
        ..Checker::default()
    };
    let mut pp: Option<(String, usize)> = None;
    for (k, line) in header.lines().enumerate() {
        let ln = k + 1;
        if let Some((mut text, start)) = pp.take() {
            text.push(' ');
            text.push_str(line);
            if line.ends_with('\\') {
                pp = Some((text, start));
            } else {
                c.directive_then_lex(&text, start);
            }
            continue;
        }
        if !c.in_comment && line.trim_start_matches([' ', '\t']).starts_with('#') {
            if line.ends_with('\\') {
                pp = Some((line.to_string(), ln));
            } else {
                c.directive_then_lex(line, ln);
            }
            continue;
        }
        c.lex(line, ln);
    }
    assert!(
        c.functions > 0,
        "{file} declares no function: not a header to check"
    );
    c.bad
}

#[test]
fn every_header_name_is_prefixed() {
    let header = xpbd_ffi_tests::generated_header();
    let bad = unprefixed("include/xpbd.h", header);
    assert!(
        bad.is_empty(),
        "names without the xpbd prefix (see .ci/header-names.sh for the rules; \
         rename them at the source: cbindgen.toml's [export.rename] or \
         [export] exclude, or an XPBD_ const in src/ffi):\n{}",
        bad.join("\n")
    );
}

/// Every kind of name, prefixed and not, with the places a name is not a
/// declaration (comments, strings, fields, parameters, macro calls).
const SAMPLE: &str = r#"/* A sample: struct Hidden in a comment, enum Nope too. "struct Quoted" */
#ifndef SAMPLE_H
#define SAMPLE_H
#define MAX_JOBS 32
#define XPBD_MAX_JOBS 32
#define XPBD_CALL(a, b) \
  do_something(a); \
  other(b)
#  define  Spaced 1 /* a comment
 spanning lines with struct Bogus */
#include <stdint.h>
#include <stddef.h>
typedef enum Color : int32_t { RED = 1, XPBD_GREEN = (1 << 2), BLUE } Color;
enum XpbdGood { XPBD_A, XPBD_B = 'b' };
typedef struct Vec3 { double x; struct Inner *next; } Vec3;
typedef struct XpbdFine { int field; void (*callback)(void *user); } XpbdFine;
typedef void (*TaskFn)(void *ctx, uint32_t task);
typedef void (*XpbdTaskFn)(void *ctx, uint32_t task);
typedef double Vec3Array[3];
typedef int32_t XpbdStatus;
union Bits { int i; float f; };
struct Forward;
#ifdef __cplusplus
extern "C" {
#endif
int solve(const struct XpbdFine *s, size_t n);
const char *xpbd_status_str(int32_t status);
struct XpbdFine xpbd_default(void);
extern double global_value;
extern double xpbd_value;
void (*hook_ptr)(int);
XPBD_CALL(1, 2);
#ifdef __cplusplus
}  // extern "C"
#endif
#endif /* SAMPLE_H */
"#;

const SAMPLE_EXPECTED: &[&str] = &[
    "sample.h:3: macro SAMPLE_H lacks the XPBD_ prefix",
    "sample.h:4: macro MAX_JOBS lacks the XPBD_ prefix",
    "sample.h:9: macro Spaced lacks the XPBD_ prefix",
    "sample.h:13: tag Color lacks the Xpbd prefix",
    "sample.h:13: enumerator RED lacks the XPBD_ prefix",
    "sample.h:13: enumerator BLUE lacks the XPBD_ prefix",
    "sample.h:13: typedef Color lacks the Xpbd prefix",
    "sample.h:15: tag Vec3 lacks the Xpbd prefix",
    "sample.h:15: tag Inner lacks the Xpbd prefix",
    "sample.h:15: typedef Vec3 lacks the Xpbd prefix",
    "sample.h:17: typedef TaskFn lacks the Xpbd prefix",
    "sample.h:19: typedef Vec3Array lacks the Xpbd prefix",
    "sample.h:21: tag Bits lacks the Xpbd prefix",
    "sample.h:22: tag Forward lacks the Xpbd prefix",
    "sample.h:26: function solve lacks the xpbd_ prefix",
    "sample.h:29: variable global_value lacks the xpbd_ prefix",
    "sample.h:31: variable hook_ptr lacks the xpbd_ prefix",
];

#[test]
fn the_check_flags_each_kind_of_unprefixed_name() {
    assert_eq!(unprefixed("sample.h", SAMPLE), SAMPLE_EXPECTED);
    // The names the old header had (f9dffcf): cbindgen's copies of Rust
    // constants, one an associated constant.
    let old = "#define Isa_AVX2_BIT 1\n#define DEFAULT_SUBSTEPS 20\n#define MAX_JOBS 32\n\
               #define XPBD_MAX_JOBS 32\nint32_t xpbd_version(void);\n";
    assert_eq!(
        unprefixed("old.h", old),
        [
            "old.h:1: macro Isa_AVX2_BIT lacks the XPBD_ prefix",
            "old.h:2: macro DEFAULT_SUBSTEPS lacks the XPBD_ prefix",
            "old.h:3: macro MAX_JOBS lacks the XPBD_ prefix",
        ]
    );
    // One unprefixed line in the real header is enough.
    let header = xpbd_ffi_tests::generated_header();
    let spoiled = header.replacen(
        "#define XPBD_MAX_JOBS 32",
        "#define XPBD_MAX_JOBS 32\n#define MAX_JOBS 32",
        1,
    );
    assert_ne!(
        spoiled, header,
        "the header no longer defines XPBD_MAX_JOBS 32"
    );
    let bad = unprefixed("xpbd.h", &spoiled);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].ends_with(": macro MAX_JOBS lacks the XPBD_ prefix"),
        "{bad:?}"
    );
}

#[test]
#[should_panic(expected = "declares no function")]
fn an_empty_header_does_not_pass() {
    let _ = unprefixed("empty.h", "/* nothing */\n#define XPBD_X 1\n");
}

/// The script reports what this test reports, on the sample (where bash and
/// awk exist: CI; elsewhere the test says so and passes).
#[test]
fn script_and_test_agree() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("header-names");
    std::fs::create_dir_all(&dir).expect("create the sample's directory");
    let sample = dir.join("sample.h");
    std::fs::write(&sample, SAMPLE).expect("write the sample");
    let run = |file: &std::path::Path| {
        std::process::Command::new("bash")
            .arg(format!("{root}/.ci/header-names.sh"))
            .arg(file)
            .output()
    };
    let out = match run(&sample) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("bash not available ({e}): the script is not compared");
            return;
        }
    };
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let prefix = format!("{}:", sample.display());
    let lines: Vec<String> = text
        .lines()
        .skip(1)
        .map(|l| l.replacen(&prefix, "sample.h:", 1))
        .collect();
    assert_eq!(lines, SAMPLE_EXPECTED, "script output:\n{text}");
    // And the generated header passes the script.
    let header = dir.join("xpbd.h");
    std::fs::write(&header, xpbd_ffi_tests::generated_header()).expect("write the header");
    let out = run(&header).expect("bash ran once already");
    assert!(out.status.success(), "{out:?}");
}
