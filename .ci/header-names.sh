#!/usr/bin/env bash
# Every name the C header declares or defines carries the xpbd prefix:
#
#   bash .ci/header-names.sh [HEADER]      (default include/xpbd.h)
#
# Exit 0 when every name is prefixed; exit 1 printing each offending name
# (once, at its first line) otherwise, or when HEADER declares no function
# at all (an empty or unreadable file must not pass). The same rules are
# implemented in Rust by ffi-tests/tests/header_names.rs, so that
# `cargo test --workspace` catches an unprefixed name too; that test also
# runs this script on a sample and compares the two lists.
#
# The rules, by kind of name:
#   macro       `#define NAME`, object- or function-like      XPBD_
#   enumerator  a constant of an enum body                    XPBD_
#   tag         NAME after struct/union/enum, anywhere in the
#               code (definition, forward declaration or use) Xpbd
#   typedef     the name a typedef declares (also `(*NAME)`)  Xpbd
#   function    a function declared at file scope             xpbd_
#   variable    an object declared at file scope (also a      xpbd_
#               function pointer, `(*NAME)(...)`)
#
# Exemptions, and why none is a list of names: only names the header itself
# declares or defines are checked. Names it merely uses are not: the C
# types of stddef.h/stdint.h (size_t, int32_t, ...: typedef names, not
# tags), the compilers' macros (__cplusplus, __STDC_VERSION__,
# _MSVC_LANG), static_assert and _Static_assert, and the macro names tested
# by #if/#ifdef/#undef. Struct fields, function parameters and the names in
# comments and string literals are not file-scope names. A file-scope
# `NAME(...);` whose NAME the header #defines is a macro invocation (the
# layout checks' XPBD_CHECK_LAYOUT), not a function. The include guard,
# XPBD_H, is an ordinary macro and carries the prefix.
#
# A small C lexer in awk (comments, strings, preprocessor lines with their
# continuations), then a token-level reading of the declarations: enough for
# what cbindgen writes, not a C parser.
set -euo pipefail
header=${1:-include/xpbd.h}
[ -r "$header" ] || { echo "header-names: cannot read $header" >&2; exit 1; }
LC_ALL=C awk '
function report(kind, name, want, ln,    key) {
    key = kind SUBSEP name
    if (key in seen) return
    seen[key] = 1
    bad[++nbad] = sprintf("%s:%d: %s %s lacks the %s prefix", FILENAME, ln, kind, name, want)
}
function check(kind, name, ln) {
    count[kind]++
    if (kind == "macro" || kind == "enumerator") {
        if (name !~ /^XPBD_/) report(kind, name, "XPBD_", ln)
    } else if (kind == "tag" || kind == "typedef") {
        if (name !~ /^Xpbd/) report(kind, name, "Xpbd", ln)
    } else if (name !~ /^xpbd_/) {
        report(kind, name, "xpbd_", ln)
    }
}
function is_ident(t) { return t ~ /^[A-Za-z_][A-Za-z0-9_]*$/ }
function is_tag_keyword(t) { return t == "struct" || t == "union" || t == "enum" }
# A preprocessor directive (continuations joined): only #define names one.
function directive(text, ln,    rest, name) {
    rest = text
    sub(/^[ \t]*#[ \t]*/, "", rest)
    if (rest !~ /^define[ \t]/) return
    sub(/^define[ \t]+/, "", rest)
    if (match(rest, /^[A-Za-z_][A-Za-z0-9_]*/)) {
        name = substr(rest, 1, RLENGTH)
        macros[name] = 1
        check("macro", name, ln)
    }
}
# The file-scope statement st[1..ns] has ended with ";".
function statement(ln,    k, first, name, pointer) {
    first = 0
    for (k = 1; k <= ns; k++) if (st[k] == "(" && stpd[k] == 0) { first = k; break }
    name = ""
    if (first > 0) {
        pointer = st[first + 1] == "*" && is_ident(st[first + 2])
        if (pointer) name = st[first + 2]
        else if (first > 1 && is_ident(st[first - 1])) name = st[first - 1]
        if (name == "") return
        if (typedef_stmt) check("typedef", name, stln[first])
        else if (pointer) check("variable", name, stln[first])
        else if (!(name in macros)) check("function", name, stln[first])
        return
    }
    for (k = ns; k >= 1; k--) {
        if (stpd[k] != 0 || !is_ident(st[k])) continue
        if (k > 1 && is_tag_keyword(st[k - 1])) return
        if (is_tag_keyword(st[k]) || st[k] == "typedef") return
        check(typedef_stmt ? "typedef" : "variable", st[k], stln[k])
        return
    }
}
function token(t, ln) {
    if (quiet) return
    if (is_ident(t) && is_tag_keyword(prev)) check("tag", t, ln)
    if (t == "enum") enum_next = 1
    if (t == "{") {
        if (depth == 0 && ns == 2 && st[1] == "extern" && st[2] == "\"") {
            stack[++sp] = "extern"  # extern "C" { ... }: file scope inside
            ns = 0
        } else {
            stack[++sp] = enum_next ? "enum" : "block"
            depth++
            expect = (stack[sp] == "enum")
        }
        enum_next = 0
        prev = t
        return
    }
    if (t == "}") {
        if (sp > 0 && stack[sp--] != "extern") {
            depth--
            if (depth == 0) ns = 0  # declarators follow the body
        }
        enum_next = 0
        prev = t
        return
    }
    if (t == ";") enum_next = 0
    if (sp > 0 && stack[sp] == "enum" && pd == 0) {
        if (expect && is_ident(t)) { check("enumerator", t, ln); expect = 0 }
        if (t == ",") expect = 1
    }
    if (depth == 0) {
        if (t == ";" && pd == 0) {
            statement(ln)
            ns = 0
            typedef_stmt = 0
        } else {
            if (ns == 0 && t == "typedef") typedef_stmt = 1
            st[++ns] = t
            stpd[ns] = pd
            stln[ns] = ln
        }
    }
    if (t == "(") pd++
    if (t == ")") pd--
    prev = t
}
# The code of one line, outside preprocessor directives.
function lex(s, ln,    n, i, j, c, d, q) {
    n = length(s)
    for (i = 1; i <= n; i++) {
        if (in_comment) {
            j = index(substr(s, i), "*/")
            if (j == 0) return
            i += j
            in_comment = 0
            continue
        }
        c = substr(s, i, 1)
        d = substr(s, i + 1, 1)
        if (c == "/" && d == "*") { in_comment = 1; i++; continue }
        if (c == "/" && d == "/") return
        if (c == "\"" || c == "\047") {
            q = c
            for (i++; i <= n && substr(s, i, 1) != q; i++) if (substr(s, i, 1) == "\\") i++
            token("\"", ln)
            continue
        }
        if (c ~ /[A-Za-z_]/) {
            for (j = i; j <= n && substr(s, j, 1) ~ /[A-Za-z0-9_]/; j++);
            token(substr(s, i, j - i), ln)
            i = j - 1
            continue
        }
        if (c ~ /[0-9]/) {
            for (j = i; j <= n && substr(s, j, 1) ~ /[A-Za-z0-9_.]/; j++);
            token("0", ln)
            i = j - 1
            continue
        }
        if (c ~ /[ \t\r]/) continue
        token(c, ln)
    }
}
{
    if (pp_open) {
        pp_text = pp_text " " $0
        if ($0 ~ /\\$/) next
        pp_open = 0
        directive(pp_text, pp_line)
        quiet = 1
        lex(pp_text, pp_line)
        quiet = 0
        next
    }
    if (!in_comment && $0 ~ /^[ \t]*#/) {
        pp_text = $0
        pp_line = FNR
        if ($0 ~ /\\$/) { pp_open = 1; next }
        directive(pp_text, pp_line)
        quiet = 1  # only for a comment the directive opens and leaves open
        lex(pp_text, pp_line)
        quiet = 0
        next
    }
    lex($0, FNR)
}
END {
    if (count["function"] == 0) {
        printf "header-names: %s declares no function: not a header to check\n", FILENAME
        exit 1
    }
    if (nbad > 0) {
        printf "header-names: %d name(s) in %s lack the xpbd prefix (XPBD_ for macros and enumerators, Xpbd for tags and typedefs, xpbd_ for functions and variables):\n", nbad, FILENAME
        for (k = 1; k <= nbad; k++) print bad[k]
        exit 1
    }
    printf "header-names: %s: %d macros, %d enumerators, %d tags, %d typedefs, %d functions, %d variables, all prefixed\n", FILENAME, count["macro"], count["enumerator"], count["tag"], count["typedef"], count["function"], count["variable"] + 0
}
' "$header"
