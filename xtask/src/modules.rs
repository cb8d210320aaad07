//! `cargo xtask modules`: the modules of each crate and which use which, refusing import
//! cycles and breaches of the layering rules.
//!
//! Imports should run one way inside a crate, so that a module can be read, tested and
//! replaced knowing only what it uses. This reads the sources as text: each file is a
//! module (`a/b.rs` or `a/b/mod.rs` is `a::b`, `#[path]` attributes included), and every
//! `crate::`, `self::` or `super::` path outside comments, string literals and test
//! modules is an edge to the module it names. A path to an item the crate root re-exports
//! (`crate::Error`) is an edge to the module that defines it, and `mod` declarations are
//! not edges, so only real uses count. A cycle of two or more modules is an error.
//!
//! The layering rules ([`RULES`]) keep each layer out of what it must not know, as
//! ARCHITECTURE.md draws them: the engines never use `problem` or `method`, the core's
//! `error` names no engine module, the scheduler names no queen (no `nqueens-core` in its
//! manifest, no `nqueens_core` in its code), and the CLI names no engine (no `Method::`
//! variant, no `JOIN_` constant, no "half-board" in a string). Each rule is a row of data:
//! the files it covers, what their code must not contain (outside comments and test
//! modules) and why. Every breach is an error that names its file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates whose modules are checked, by source folder.
const CRATES: [&str; 6] = [
    "crates/core/src",
    "crates/scheduler/src",
    "crates/plan/src",
    "crates/cli/src",
    "crates/test-support/src",
    "xtask/src",
];

/// A layering rule: what the code of some files must not contain, and why.
struct Rule {
    /// The files covered, from the workspace root; one ending in `/` is a folder, and
    /// stands for every Rust file and `Cargo.toml` below it.
    files: &'static [&'static str],
    /// What their code must not contain.
    forbidden: &'static [Forbidden],
    /// Why, for whoever breaks the rule.
    why: &'static str,
}

/// What a rule forbids. Comments and `#[cfg(test)]` modules are never read: tests may use
/// anything, and doc comments (clap's help text among them) may name anything.
enum Forbidden {
    /// A use of this module of the file's crate, or of one inside it, by any path that
    /// leads there: `crate::problem::Problem`, `super::super::problem`, or the re-exported
    /// `crate::Problem`. Only files in one of the [`CRATES`] source folders have modules.
    Module(&'static str),
    /// An identifier containing this text, in code or in a string literal.
    Identifier(&'static str),
    /// A path where segment `of` is followed by a capitalised name (a variant or an
    /// associated constant) not in `except`, in code or in a string literal.
    Variant { of: &'static str, except: &'static [&'static str] },
    /// A string literal containing this text.
    InString(&'static str),
    /// A dependency on this package in any dependency table of a `Cargo.toml`.
    Dependency(&'static str),
}

/// The layering rules. A new one is a row here; a test below feeds each a breach.
const RULES: [Rule; 5] = [
    Rule {
        files: &["crates/core/src/backtrack/", "crates/core/src/join/"],
        forbidden: &[Forbidden::Module("crate::problem"), Forbidden::Module("crate::method")],
        why: "an engine never sees the front door: it knows its own tasks, not the Problem \
              or the Method that chose it",
    },
    Rule {
        files: &["crates/core/src/error.rs"],
        forbidden: &[Forbidden::Module("crate::join"), Forbidden::Module("crate::backtrack")],
        why: "errors are data about what was asked, not about one engine",
    },
    Rule {
        files: &["crates/scheduler/"],
        forbidden: &[Forbidden::Dependency("nqueens-core"), Forbidden::Identifier("nqueens_core")],
        why: "the scheduler names no queen: a task is any value with an index, solved by a \
              function into a result that merges",
    },
    Rule {
        files: &["crates/cli/src/"],
        forbidden: &[
            Forbidden::Variant { of: "Method", except: &["ALL"] },
            Forbidden::Identifier("JOIN_"),
            Forbidden::InString("half-board"),
        ],
        why: "the CLI names no engine: it knows methods through Method::ALL, \
              Method::auto and Method::fastest and the rest through the Problem, so that \
              adding an engine touches only the core and the --method help",
    },
    Rule {
        files: &["crates/plan/src/"],
        forbidden: &[
            Forbidden::Variant { of: "Method", except: &[] },
            Forbidden::Identifier("JOIN_"),
            Forbidden::InString("half-board"),
            Forbidden::InString("row set"),
        ],
        why: "the plan crate names no engine: it plans any engine's count through the \
              Problem's tasks, children, units, pieces and charges",
    },
];

pub(crate) fn run(verbose: bool) -> Result<(), String> {
    let root = crate::workspace::project_root();
    let crates = read_crates(&root)?;
    if verbose {
        for krate in &crates {
            println!("{}:", krate.folder);
            for (module, uses) in &krate.graph().edges {
                let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
                println!("  {module} -> {}", uses.join(", "));
            }
        }
    }
    let cycles = cycles(&crates);
    let breaches = layering_breaches(&root, &crates)?;
    let mut problems = Vec::new();
    if !cycles.is_empty() {
        problems.push(format!("import cycles between modules:\n  {}", cycles.join("\n  ")));
    }
    if !breaches.is_empty() {
        problems.push(describe(&RULES, &breaches));
    }
    if problems.is_empty() {
        println!(
            "no import cycles between the modules of {} crates, and the {} layering rules hold",
            CRATES.len(),
            RULES.len()
        );
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn read_crates(root: &Path) -> Result<Vec<Crate>, String> {
    CRATES.iter().map(|folder| Crate::read(root, folder)).collect()
}

/// Each import cycle, named by its crate's folder and its modules.
fn cycles(crates: &[Crate]) -> Vec<String> {
    crates
        .iter()
        .flat_map(|krate| {
            let cycles = krate.graph().cycles();
            cycles.into_iter().map(|cycle| format!("{}: {}", krate.folder, cycle.join(" <-> ")))
        })
        .collect()
}

/// Where the files of the workspace break the layering rules.
fn layering_breaches(root: &Path, crates: &[Crate]) -> Result<Vec<Breach>, String> {
    let mut found = Vec::new();
    for path in covered_files(root, &RULES)? {
        let text = std::fs::read_to_string(root.join(&path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        found.extend(breaches(&RULES, &path, &text, crates));
    }
    found.sort_by(Breach::order);
    Ok(found)
}

/// One crate's source files, read once for its module graph and for the rules.
struct Crate {
    /// The source folder, from the workspace root.
    folder: String,
    /// Each file's path below the folder, and its code.
    files: Vec<(PathBuf, Stripped)>,
    /// The module each `#[path = "file.rs"] mod name;` makes of a file, by the module its
    /// path alone would make of it.
    renamed: BTreeMap<String, String>,
    modules: BTreeSet<String>,
    /// Which module each name the crate root re-exports comes from.
    reexports: BTreeMap<String, String>,
}

impl Crate {
    fn read(root: &Path, folder: &str) -> Result<Crate, String> {
        let src = root.join(folder);
        let mut files = Vec::new();
        collect_files(&src, &mut files)?;
        let mut texts = Vec::new();
        for path in files.iter().filter(|path| path.extension().is_some_and(|ext| ext == "rs")) {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let relative = path.strip_prefix(&src).expect("listed below the source folder");
            texts.push((relative.to_owned(), text));
        }
        Ok(Crate::new(folder, texts))
    }

    /// The crate whose source folder `folder` holds `texts`, each a file's path below the
    /// folder and its text.
    fn new(folder: &str, texts: Vec<(PathBuf, String)>) -> Crate {
        let renamed: BTreeMap<String, String> =
            texts.iter().flat_map(|(relative, text)| path_attributes(relative, text)).collect();
        let files: Vec<(PathBuf, Stripped)> =
            texts.into_iter().map(|(relative, text)| (relative, strip(&text))).collect();
        let module = |relative: &Path| renamed_module(&renamed, relative);
        let modules: BTreeSet<String> =
            files.iter().map(|(relative, _)| module(relative)).collect();
        let root: Vec<String> = files
            .iter()
            .filter(|(relative, _)| module(relative) == "crate")
            .map(|(_, stripped)| stripped.code())
            .collect();
        let reexports = reexports(&root.join("\n"), &modules);
        Crate { folder: folder.to_owned(), files, renamed, modules, reexports }
    }

    /// The module of the file at `relative` below the source folder.
    fn module_of(&self, relative: &Path) -> String {
        renamed_module(&self.renamed, relative)
    }

    /// The modules of the crate and the ones each uses. Files that stand for one module
    /// under different features count as one.
    fn graph(&self) -> Graph {
        let mut graph = Graph::default();
        for (relative, stripped) in &self.files {
            let module = self.module_of(relative);
            let targets: Vec<String> = self
                .uses(&module, &stripped.code())
                .into_iter()
                .map(|(_, target)| target)
                .filter(|target| *target != module)
                .collect();
            graph.edges.entry(module).or_default().extend(targets);
        }
        graph
    }

    /// The modules of this crate that `code`, written in `module`, uses, each with the path
    /// that names it.
    fn uses(&self, module: &str, code: &str) -> Vec<(Use, String)> {
        paths(module, code)
            .into_iter()
            .filter_map(|found| {
                let target = resolve(&found.inside, &found.path, &self.modules, &self.reexports)?;
                Some((found, target))
            })
            .collect()
    }
}

/// One crate's modules (`crate` for the root) and the modules each uses.
#[derive(Debug, Default)]
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// Every strongly connected set of two or more modules, each sorted.
    fn cycles(&self) -> Vec<Vec<String>> {
        let reaches = |from: &String| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from.clone()];
            while let Some(module) = stack.pop() {
                for next in self.edges.get(&module).into_iter().flatten() {
                    if seen.insert(next.clone()) {
                        stack.push(next.clone());
                    }
                }
            }
            seen
        };
        let reach: BTreeMap<&String, BTreeSet<String>> =
            self.edges.keys().map(|module| (module, reaches(module))).collect();
        let mut cycles: BTreeSet<Vec<String>> = BTreeSet::new();
        for (module, reached) in &reach {
            let cycle: Vec<String> = reached
                .iter()
                .filter(|other| {
                    *other != *module && reach.get(other).is_some_and(|r| r.contains(*module))
                })
                .cloned()
                .chain(std::iter::once((*module).clone()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if cycle.len() > 1 {
                cycles.insert(cycle);
            }
        }
        cycles.into_iter().collect()
    }
}

/// A place where a file breaks a rule.
struct Breach {
    /// The rule's index in the table, so that breaches sort and group by rule.
    rule: usize,
    /// The file, from the workspace root.
    path: String,
    line: usize,
    /// What the line holds that the rule forbids.
    found: String,
}

impl Breach {
    /// By rule, then by file and line, as [`describe`] lists them.
    fn order(a: &Breach, b: &Breach) -> std::cmp::Ordering {
        (a.rule, &a.path, a.line).cmp(&(b.rule, &b.path, b.line))
    }
}

/// Where the file at `path` (from the workspace root), which holds `text`, breaks one of
/// `rules`. `crates` resolves the paths of a Rust file to the modules they use.
fn breaches(rules: &[Rule], path: &str, text: &str, crates: &[Crate]) -> Vec<Breach> {
    let mut found = Vec::new();
    for (index, rule) in rules.iter().enumerate() {
        if !rule.files.iter().any(|covered| covers(covered, path)) {
            continue;
        }
        for forbidden in rule.forbidden {
            found.extend(
                forbidden.find(path, text, crates).into_iter().map(|(line, found)| Breach {
                    rule: index,
                    path: path.to_owned(),
                    line,
                    found,
                }),
            );
        }
    }
    found.sort_by(Breach::order);
    found
}

/// Whether `covered`, a file or a folder ending in `/` as rules name them, holds `path`.
fn covers(covered: &str, path: &str) -> bool {
    if covered.ends_with('/') { path.starts_with(covered) } else { path == covered }
}

impl Forbidden {
    /// Each line of the file at `path`, which holds `text`, that holds this, and what it
    /// holds. A manifest is read for dependencies alone, a Rust file for the rest.
    fn find(&self, path: &str, text: &str, crates: &[Crate]) -> Vec<(usize, String)> {
        let manifest = path.ends_with("Cargo.toml");
        match *self {
            Forbidden::Dependency(package) if manifest => dependencies(text)
                .into_iter()
                .filter(|(_, name)| name == package)
                .map(|(line, name)| (line, format!("a dependency on {name}")))
                .collect(),
            Forbidden::Dependency(_) => Vec::new(),
            _ if manifest => Vec::new(),
            Forbidden::Module(module) => {
                let Some((krate, relative)) = crates.iter().find_map(|krate| {
                    let relative = path.strip_prefix(&krate.folder)?.strip_prefix('/')?;
                    Some((krate, Path::new(relative)))
                }) else {
                    return Vec::new();
                };
                let inside = format!("{module}::");
                krate
                    .uses(&krate.module_of(relative), &strip(text).code())
                    .into_iter()
                    .filter(|(_, target)| target == module || target.starts_with(&inside))
                    .map(|(found, _)| (found.line, found.path.join("::")))
                    .collect()
            }
            Forbidden::Identifier(part) => strip(text)
                .code_and_strings()
                .flat_map(|view| tokenize(&view))
                .filter(|token| is_word(&token.text) && token.text.contains(part))
                .map(|token| (token.line, token.text))
                .collect(),
            Forbidden::Variant { of, except } => strip(text)
                .code_and_strings()
                .flat_map(|view| paths("crate", &view))
                .filter_map(|found| {
                    let named = found.path.windows(2).find(|pair| {
                        pair[0] == of
                            && pair[1].starts_with(char::is_uppercase)
                            && !except.contains(&pair[1].as_str())
                    })?;
                    Some((found.line, named.join("::")))
                })
                .collect(),
            Forbidden::InString(part) => strip(text)
                .strings
                .iter()
                .enumerate()
                .filter(|(_, strings)| strings.contains(part))
                .map(|(index, _)| (index + 1, format!("\"{part}\" in a string literal")))
                .collect(),
        }
    }
}

/// The breaches of `rules`, grouped by rule, each rule with why it holds.
fn describe(rules: &[Rule], breaches: &[Breach]) -> String {
    let mut out = String::from("layering rules broken:");
    let mut rule = None;
    for breach in breaches {
        if rule != Some(breach.rule) {
            rule = Some(breach.rule);
            out.push_str(&format!("\n  {}:", rules[breach.rule].why));
        }
        out.push_str(&format!("\n    {}:{}: {}", breach.path, breach.line, breach.found));
    }
    out
}

/// Every file the rules cover, from the workspace root. A file or folder a rule names that
/// is not there is an error, so that a move cannot switch a rule off unnoticed.
fn covered_files(root: &Path, rules: &[Rule]) -> Result<BTreeSet<String>, String> {
    let mut covered = BTreeSet::new();
    for name in rules.iter().flat_map(|rule| rule.files) {
        let path = root.join(name);
        if !path.exists() {
            return Err(format!("a layering rule covers {name}, which does not exist"));
        }
        let mut files = Vec::new();
        if name.ends_with('/') {
            collect_files(&path, &mut files)?;
        } else {
            files.push(path);
        }
        let checked = |file: &&PathBuf| {
            file.extension().is_some_and(|ext| ext == "rs")
                || file.file_name().is_some_and(|name| name == "Cargo.toml")
        };
        for file in files.iter().filter(checked) {
            let relative = file.strip_prefix(root).expect("listed below the workspace root");
            covered.insert(relative.to_string_lossy().into_owned());
        }
    }
    Ok(covered)
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_files(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// The module of the file at `relative` below a source folder, where `renamed` holds the
/// modules `#[path]` attributes make of files.
fn renamed_module(renamed: &BTreeMap<String, String>, relative: &Path) -> String {
    let module = module_of(relative);
    renamed.get(&module).cloned().unwrap_or(module)
}

/// The module a file below the source folder is by its path alone: `crate`, or
/// `crate::a::b`.
fn module_of(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    std::iter::once("crate".to_owned()).chain(parts).collect::<Vec<_>>().join("::")
}

/// A Rust file as the checks read it, line for line. Comments are gone, and the lines of
/// `#[cfg(test)]` modules, which may use anything, are empty in both views, so that line
/// numbers stay the file's.
#[derive(Default)]
struct Stripped {
    /// The code, with every string literal `""` and every character literal a space, so
    /// that their contents cannot pass for code.
    code: Vec<String>,
    /// Only the string literals, each in quotes, on the lines where they stand.
    strings: Vec<String>,
}

impl Stripped {
    fn code(&self) -> String {
        self.code.join("\n")
    }

    /// The code, then the string literals: what names a thing in a message names it too.
    fn code_and_strings(&self) -> impl Iterator<Item = String> {
        [self.code(), self.strings.join("\n")].into_iter()
    }
}

/// Splits `text` into its code and its string literals, without comments (nested block
/// comments included) and without `#[cfg(test)]` modules.
fn strip(text: &str) -> Stripped {
    /// What the character being read belongs to.
    enum In {
        Code,
        LineComment,
        BlockComment {
            depth: usize,
        },
        /// A string literal; a raw one ends at a quote followed by `hashes` hashes.
        Str {
            raw: Option<usize>,
        },
    }
    let chars: Vec<char> = text.chars().collect();
    let mut stripped = Stripped::default();
    let (mut code, mut strings) = (String::new(), String::new());
    let mut state = In::Code;
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        if c == '\n' {
            stripped.code.push(std::mem::take(&mut code));
            stripped.strings.push(std::mem::take(&mut strings));
            if matches!(state, In::LineComment) {
                state = In::Code;
            }
            i += 1;
            continue;
        }
        match state {
            In::Code => {
                let raw = if c == 'r' { raw_string_hashes(&chars, i) } else { None };
                if c == '/' && next == Some('/') {
                    state = In::LineComment;
                } else if c == '/' && next == Some('*') {
                    state = In::BlockComment { depth: 1 };
                    code.push(' ');
                    i += 1;
                } else if c == '"' || raw.is_some() {
                    state = In::Str { raw };
                    code.push('"');
                    strings.push('"');
                    i += raw.map_or(0, |hashes| 1 + hashes);
                } else if c == '\'' {
                    match character_literal_len(&chars, i) {
                        Some(len) => {
                            code.push(' ');
                            i += len - 1;
                        }
                        // A lifetime or a loop label.
                        None => code.push(c),
                    }
                } else {
                    code.push(c);
                }
            }
            In::LineComment => {}
            In::BlockComment { depth } => {
                if c == '/' && next == Some('*') {
                    state = In::BlockComment { depth: depth + 1 };
                    i += 1;
                } else if c == '*' && next == Some('/') {
                    state =
                        if depth == 1 { In::Code } else { In::BlockComment { depth: depth - 1 } };
                    i += 1;
                }
            }
            In::Str { raw } => {
                let closes = c == '"'
                    && raw.is_none_or(|hashes| chars[i + 1..].starts_with(&['#'].repeat(hashes)));
                if closes {
                    state = In::Code;
                    code.push('"');
                    strings.push_str("\" ");
                    i += raw.unwrap_or(0);
                } else if raw.is_none() && c == '\\' && matches!(next, Some('"' | '\\')) {
                    // An escaped quote or backslash. Any other escape, a line continuation
                    // among them, is read on as it comes.
                    strings.push(c);
                    strings.extend(next);
                    i += 1;
                } else {
                    strings.push(c);
                }
            }
        }
        i += 1;
    }
    stripped.code.push(code);
    stripped.strings.push(strings);
    without_test_modules(&mut stripped);
    stripped
}

/// How many hashes open the raw string literal whose `r` is at `chars[at]`, if one does:
/// `r"`, `r#"`, `br"`, but not a raw identifier (`r#type`) or a word ending in `r`.
fn raw_string_hashes(chars: &[char], at: usize) -> Option<usize> {
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    let starts_word = match at.checked_sub(1).map(|before| chars[before]) {
        Some('b' | 'c') => at < 2 || !word_char(chars[at - 2]),
        Some(before) => !word_char(before),
        None => true,
    };
    let hashes = chars[at + 1..].iter().take_while(|&&c| c == '#').count();
    (starts_word && chars.get(at + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// How many characters the character literal opening at `chars[at]` takes, quotes
/// included, or `None` where the quote opens a lifetime or a label.
fn character_literal_len(chars: &[char], at: usize) -> Option<usize> {
    if chars.get(at + 1) == Some(&'\\') {
        // The escaped character, then anything up to the closing quote (`'\u{1F600}'`).
        let close = chars.get(at + 3..)?.iter().position(|&c| c == '\'' || c == '\n')?;
        (chars[at + 3 + close] == '\'').then_some(close + 4)
    } else {
        (chars.get(at + 2) == Some(&'\'')).then_some(3)
    }
}

/// Empties the lines of every `#[cfg(test)]` module, from the attribute to its closing
/// brace, or to the semicolon of a module in a file of its own.
fn without_test_modules(stripped: &mut Stripped) {
    let mut line = 0;
    while line < stripped.code.len() {
        let is_test_module = stripped.code[line].trim() == "#[cfg(test)]"
            && stripped
                .code
                .get(line + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod "));
        if !is_test_module {
            line += 1;
            continue;
        }
        let (mut depth, mut opened) = (0usize, false);
        while line < stripped.code.len() {
            let text = std::mem::take(&mut stripped.code[line]);
            stripped.strings[line].clear();
            line += 1;
            opened |= text.contains('{');
            depth += text.matches('{').count();
            depth = depth.saturating_sub(text.matches('}').count());
            if (opened && depth == 0) || (!opened && text.contains(';')) {
                break;
            }
        }
    }
}

/// `(file's module, declared module)` for each `#[path = "file.rs"] mod name;` in the file
/// at `relative`.
fn path_attributes(relative: &Path, text: &str) -> Vec<(String, String)> {
    let folder = relative.parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(file) =
            line.trim().strip_prefix("#[path = \"").and_then(|l| l.strip_suffix("\"]"))
        else {
            continue;
        };
        let declared = lines.peek().and_then(|next| next.trim().strip_prefix("mod "));
        if let Some(name) = declared.map(|name| name.trim_end_matches(';').trim()) {
            let declared_in = module_of(relative);
            found.push((module_of(&folder.join(file)), format!("{declared_in}::{name}")));
        }
    }
    found
}

/// A path in code that may name a module of the crate.
#[derive(Debug)]
struct Use {
    /// The module it is written in.
    inside: String,
    /// Its segments, with brace groups expanded: `a::{b, c}` is two paths.
    path: Vec<String>,
    /// The line of its last segment.
    line: usize,
}

/// Every path in `module`'s code that may name a module of the crate (`crate::`,
/// `self::`, `super::` or a first segment followed by `::`), with brace groups expanded,
/// and the module it is written in: inline `mod name { ... }` blocks count, since `super`
/// inside one means the file's module.
fn paths(module: &str, code: &str) -> Vec<Use> {
    let tokens = tokenize(code);
    let mut found = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.text == "{") => {
                inline.push((tokens[i + 1].text.clone(), depth));
            }
            _ => {}
        }
        let starts = is_word(&tokens[i].text)
            && tokens.get(i + 1).is_some_and(|t| t.text == "::")
            && (i == 0 || tokens[i - 1].text != "::");
        if starts {
            let inside: Vec<&str> = std::iter::once(module)
                .chain(inline.iter().map(|(name, _)| name.as_str()))
                .collect();
            let mut group = Vec::new();
            i = expand(&tokens, i, Vec::new(), &mut group);
            found.extend(group.into_iter().map(|(path, line)| Use {
                inside: inside.join("::"),
                path,
                line,
            }));
        } else {
            i += 1;
        }
    }
    found
}

/// Reads the path at `tokens[i]` below `prefix`, expanding `{a, b::c}` groups, into
/// `found` with the line of its last segment; returns the index after it.
fn expand(
    tokens: &[Token],
    mut i: usize,
    mut prefix: Vec<String>,
    found: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut line = tokens.get(i).map_or(0, |token| token.line);
    loop {
        match tokens.get(i).map(|token| token.text.as_str()) {
            Some("{") => {
                i += 1;
                while tokens.get(i).is_some_and(|t| t.text != "}") {
                    if tokens[i].text == "," {
                        i += 1;
                        continue;
                    }
                    i = expand(tokens, i, prefix.clone(), found);
                }
                return i + 1;
            }
            Some(word) if is_word(word) => {
                prefix.push(word.to_owned());
                line = tokens[i].line;
                if tokens.get(i + 1).is_some_and(|t| t.text == "::") {
                    i += 2;
                } else {
                    found.push((prefix, line));
                    return i + 1;
                }
            }
            _ => {
                found.push((prefix, line));
                return i;
            }
        }
    }
}

/// A word, `::` or another single character of code, and the line it stands on.
#[derive(Debug)]
struct Token {
    text: String,
    /// Counted from 1.
    line: usize,
}

fn is_word(text: &str) -> bool {
    text.chars().all(|c| c.is_alphanumeric() || c == '_')
}

fn tokenize(code: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&next) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(next);
                chars.next();
            }
            tokens.push(Token { text: word, line });
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push(Token { text: "::".to_owned(), line });
        } else if c == '\n' {
            line += 1;
        } else if !c.is_whitespace() {
            tokens.push(Token { text: c.to_string(), line });
        }
    }
    tokens
}

/// The packages a `Cargo.toml` depends on, in any dependency table (`[dependencies]`,
/// `[dev-dependencies]`, `[target.'cfg(unix)'.build-dependencies]`, ...), each with its
/// line: the key, or, for a renamed dependency, its `package`.
fn dependencies(manifest: &str) -> Vec<(usize, String)> {
    /// The kind of table the line being read is in.
    #[derive(PartialEq)]
    enum Table {
        Dependencies,
        /// One dependency's own table, `[dependencies.name]`.
        OneDependency,
        Other,
    }
    let is_dependencies = |segment: &str| segment.ends_with("dependencies");
    let unquoted = |name: &str| name.trim().trim_matches('"').to_owned();
    let package = |value: &str| {
        let (_, rest) = value.split_once("package")?;
        let rest = rest.trim_start().strip_prefix('=')?.trim_start().strip_prefix('"')?;
        rest.split('"').next().map(str::to_owned)
    };
    let mut found = Vec::new();
    let mut table = Table::Other;
    for (index, line) in manifest.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            let segments: Vec<&str> = header.trim_matches(['[', ']']).split('.').collect();
            table = match segments[..] {
                [.., last] if is_dependencies(last) => Table::Dependencies,
                [.., dependencies, name] if is_dependencies(dependencies) => {
                    found.push((index + 1, unquoted(name)));
                    Table::OneDependency
                }
                _ => Table::Other,
            };
        } else if table != Table::Other
            && let Some(renamed) = package(line)
        {
            found.push((index + 1, renamed));
        } else if table == Table::Dependencies
            && let Some((key, _)) = line.split_once('=')
        {
            found.push((index + 1, unquoted(key.split('.').next().unwrap_or(key))));
        }
    }
    found
}

/// Which module each name the crate root re-exports (`pub use crate::m::Name`) comes from.
fn reexports(root: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for found in paths("crate", root) {
        let Some(name) = found.path.last() else { continue };
        if let Some(module) = longest_module(&found.path, modules).filter(|m| m != "crate") {
            names.insert(name.clone(), module);
        }
    }
    names
}

/// The module `path`, written in `module`, points into, if it is one of this crate's.
fn resolve(
    module: &str,
    path: &[String],
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> Option<String> {
    let mut absolute: Vec<String> = module.split("::").map(str::to_owned).collect();
    let mut rest = path;
    match path.first()?.as_str() {
        "crate" => {
            absolute = vec!["crate".to_owned()];
            rest = &path[1..];
        }
        "self" => rest = &path[1..],
        "super" => {
            while rest.first().is_some_and(|p| p == "super") {
                absolute.pop();
                rest = &rest[1..];
            }
        }
        // A child module named directly, or an outside crate, which is not an edge.
        child if !modules.contains(&format!("{module}::{child}")) => return None,
        _ => {}
    }
    absolute.extend(rest.iter().cloned());
    let target = longest_module(&absolute, modules)?;
    if target == "crate" {
        // An item of the root is usually a re-export: the edge is to where it is defined.
        if let Some(module) = absolute.get(1).and_then(|name| reexports.get(name)) {
            return Some(module.clone());
        }
    }
    Some(target)
}

fn longest_module(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|len| path[..len].join("::"))
        .find(|candidate| modules.contains(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_crate_of_the_workspace_has_an_import_cycle() {
        let root = crate::workspace::project_root();
        let cycles = cycles(&read_crates(&root).unwrap());
        assert!(cycles.is_empty(), "import cycles:\n  {}", cycles.join("\n  "));
    }

    #[test]
    fn the_workspace_keeps_the_layering_rules() {
        let root = crate::workspace::project_root();
        let breaches = layering_breaches(&root, &read_crates(&root).unwrap()).unwrap();
        assert!(breaches.is_empty(), "{}", describe(&RULES, &breaches));
    }

    /// The core as the rules see it: a root that re-exports from the front door and from
    /// an engine, and the modules the fixtures below name.
    fn core() -> Crate {
        let files = [
            ("lib.rs", "pub use crate::problem::Problem;\npub use crate::join::MIN_JOIN_MEMORY;\n"),
            ("problem.rs", ""),
            ("method.rs", ""),
            ("engine.rs", ""),
            ("error.rs", ""),
            ("kernel.rs", ""),
            ("join/mod.rs", ""),
            ("join/walk.rs", ""),
            ("backtrack/mod.rs", ""),
        ];
        let texts = files.map(|(path, text)| (PathBuf::from(path), text.to_owned()));
        Crate::new("crates/core/src", texts.into())
    }

    /// `(line, found)` of each breach of the real rules in `text` at `path`.
    fn check(path: &str, text: &str) -> Vec<(usize, String)> {
        breaches(&RULES, path, text, &[core()])
            .into_iter()
            .map(|breach| (breach.line, breach.found))
            .collect()
    }

    fn lines(expected: &[(usize, &str)]) -> Vec<(usize, String)> {
        expected.iter().map(|&(line, found)| (line, found.to_owned())).collect()
    }

    #[test]
    fn an_engine_that_uses_the_front_door_is_reported() {
        let walk = "\
//! Unlike `crate::problem::Problem`, a comment names anything.
use crate::engine::Engine;
use crate::problem::Problem;
use super::super::method::Method;
use crate::{kernel::Kernel, Problem as Front};
/* use crate::method; */

#[cfg(test)]
mod tests {
    use crate::problem::Problem;
}
";
        let expected = [
            (3, "crate::problem::Problem"),
            (4, "super::super::method::Method"),
            (5, "crate::Problem"),
        ];
        assert_eq!(check("crates/core/src/join/walk.rs", walk), lines(&expected));
        let search = "fn count() -> u128 {\n    crate::method::Method::fastest(8);\n}\n";
        let expected = [(2, "crate::method::Method::fastest")];
        assert_eq!(check("crates/core/src/backtrack/search.rs", search), lines(&expected));
        assert_eq!(check("crates/core/src/enumerate.rs", walk), [], "not an engine");
        // A test module in a file of its own ends at its declaration.
        let split = "#[cfg(test)]\nmod tests;\nuse crate::problem::Problem;\n";
        let expected = [(3, "crate::problem::Problem")];
        assert_eq!(check("crates/core/src/join/split.rs", split), lines(&expected));
    }

    #[test]
    fn an_error_that_names_an_engine_is_reported() {
        let error = "use crate::kernel::Kernel;\nconst LEAST: usize = crate::MIN_JOIN_MEMORY;\n";
        let expected = [(2, "crate::MIN_JOIN_MEMORY")];
        assert_eq!(check("crates/core/src/error.rs", error), lines(&expected));
    }

    #[test]
    fn a_scheduler_that_names_a_queen_is_reported() {
        let manifest = r#"[package]
name = "nqueens-scheduler"
description = "Knows nothing of nqueens-core."

[dependencies]
crossbeam-channel.workspace = true
# nqueens-core.workspace = true
nqueens-core.workspace = true

[dev-dependencies]
queens = { package = "nqueens-core", path = "../core" }

[target.'cfg(unix)'.dependencies.nqueens-core]
workspace = true
"#;
        let expected = [
            (8, "a dependency on nqueens-core"),
            (11, "a dependency on nqueens-core"),
            (13, "a dependency on nqueens-core"),
        ];
        assert_eq!(check("crates/scheduler/Cargo.toml", manifest), lines(&expected));
        let code = "// Not nqueens_core, whatever the comment says.\nuse nqueens_core::Task;\n";
        assert_eq!(check("crates/scheduler/tests/runner.rs", code), lines(&[(2, "nqueens_core")]));
    }

    #[test]
    fn a_cli_that_names_an_engine_is_reported_outside_comments_and_tests() {
        let report = r#"//! The join counts half-boards: comments name anything.
use nqueens_core::{Method, MIN_JOIN_MEMORY};
use nqueens_core::Method::{ALL, Eightfold};

/// How to count: join (half-board meet in the middle), as in `Method::Join`.
fn unit(method: Method) -> &'static str {
    let (all, best) = (Method::ALL, Method::fastest(16));
    let quote = '"'; // A quote in a character literal opens no string.
    let url = "https://example.invalid/"; let plain = Method::Plain;
    say!("N = {} may hold more half-boards than fit", 20);
    if method == Method::Join { "pair" } else { "node" }
}

#[cfg(test)]
mod tests {
    const M: Method = Method::Half;
    const JOIN_FINER: usize = 8;
}
"#;
        let expected = [
            (2, "MIN_JOIN_MEMORY"),
            (3, "Method::Eightfold"),
            (9, "Method::Plain"),
            (10, "\"half-board\" in a string literal"),
            (11, "Method::Join"),
        ];
        assert_eq!(check("crates/cli/src/report.rs", report), lines(&expected));
        assert_eq!(check("crates/cli/tests/cli.rs", report), [], "the CLI's own tests");
        let message = "say!(\"use Method::Half\");\n";
        let expected = [(1, "Method::Half")];
        assert_eq!(check("crates/cli/src/show.rs", message), lines(&expected), "a message");
    }

    #[test]
    fn strings_characters_and_comments_are_told_apart() {
        let text = r##"let a = "a \" and // not a comment"; let b = 'x';
let c = '\''; let d: &'static str = r#"raw "quoted" text"#; /* one /* nested */ comment */ e
fn f<'a>(g: &'a str) {} // the end
"##;
        let stripped = strip(text);
        assert_eq!(
            stripped.code[0].split_whitespace().collect::<Vec<_>>(),
            ["let", "a", "=", "\"\";", "let", "b", "=", ";"]
        );
        assert_eq!(stripped.strings[0].trim(), r#""a \" and // not a comment""#);
        assert!(stripped.code[1].ends_with("e"), "{:?}", stripped.code[1]);
        assert!(stripped.code[1].contains("&'static str"), "{:?}", stripped.code[1]);
        assert_eq!(stripped.strings[1].trim(), r#""raw "quoted" text""#);
        assert_eq!(stripped.code[2].trim(), "fn f<'a>(g: &'a str) {}");
    }

    #[test]
    fn a_cycle_is_found_and_test_modules_are_ignored() {
        let modules: BTreeSet<String> =
            ["crate", "crate::a", "crate::b", "crate::b::c"].map(str::to_owned).into();
        let code = "use crate::{a::X, b::c::Y};\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
        let uses: Vec<_> = paths("crate::b", &strip(code).code())
            .iter()
            .filter_map(|found| resolve(&found.inside, &found.path, &modules, &BTreeMap::new()))
            .collect();
        assert_eq!(uses, ["crate::a", "crate::b::c"]);
        let graph = Graph {
            edges: [
                ("crate::a".to_owned(), BTreeSet::from(["crate::b".to_owned()])),
                ("crate::b".to_owned(), BTreeSet::from(["crate::a".to_owned()])),
                ("crate::c".to_owned(), BTreeSet::from(["crate::a".to_owned()])),
            ]
            .into(),
        };
        assert_eq!(graph.cycles(), [["crate::a", "crate::b"]]);
        assert_eq!(
            resolve(
                "crate::b::c",
                &["super".to_owned(), "X".to_owned()],
                &modules,
                &BTreeMap::new()
            ),
            Some("crate::b".to_owned())
        );
    }
}
