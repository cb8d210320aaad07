//! `cargo xtask modules`: the modules of each crate and which use which, refusing cycles.
//!
//! Imports should run one way inside a crate, so that a module can be read, tested and
//! replaced knowing only what it uses. This reads the sources as text: each file is a
//! module (`a/b.rs` or `a/b/mod.rs` is `a::b`, `#[path]` attributes included), and every
//! `crate::`, `self::` or `super::` path outside comments and test modules is an edge to
//! the module it names. A path to an item the crate root re-exports (`crate::Error`) is an
//! edge to the module that defines it, and `mod` declarations are not edges, so only real
//! uses count. A cycle of two or more modules is an error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The crates whose modules are checked, by source folder.
const CRATES: [&str; 5] = [
    "crates/core/src",
    "crates/scheduler/src",
    "crates/cli/src",
    "crates/test-support/src",
    "xtask/src",
];

pub(crate) fn run(verbose: bool) -> Result<(), String> {
    let root = crate::workspace::project_root();
    let mut cycles = Vec::new();
    for folder in CRATES {
        let graph = Graph::read(&root.join(folder))?;
        if verbose {
            println!("{folder}:");
            for (module, uses) in &graph.edges {
                let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
                println!("  {module} -> {}", uses.join(", "));
            }
        }
        cycles.extend(
            graph.cycles().into_iter().map(|cycle| format!("{folder}: {}", cycle.join(" <-> "))),
        );
    }
    if cycles.is_empty() {
        println!("no import cycles between the modules of {} crates", CRATES.len());
        Ok(())
    } else {
        Err(format!("import cycles between modules:\n  {}", cycles.join("\n  ")))
    }
}

/// One crate's modules (`crate` for the root) and the modules each uses.
#[derive(Debug, Default)]
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn read(src: &Path) -> Result<Graph, String> {
        let mut files = Vec::new();
        collect_rs(src, &mut files)?;
        let mut texts = Vec::new();
        for path in &files {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let relative = path.strip_prefix(src).expect("listed below the source folder");
            texts.push((relative.to_owned(), text));
        }
        // `#[path = "file.rs"] mod name;` makes the file that module.
        let renamed: BTreeMap<String, String> =
            texts.iter().flat_map(|(relative, text)| path_attributes(relative, text)).collect();
        let mut sources: BTreeMap<String, String> = BTreeMap::new();
        for (relative, text) in &texts {
            let module = module_of(relative);
            let module = renamed.get(&module).cloned().unwrap_or(module);
            // Files that stand for one module under different features are read as one.
            sources.entry(module).or_default().push_str(&code_only(text));
        }
        let modules: BTreeSet<String> = sources.keys().cloned().collect();
        let reexports = reexports(sources.get("crate").map_or("", String::as_str), &modules);
        let mut graph = Graph::default();
        for (module, code) in &sources {
            let uses = graph.edges.entry(module.clone()).or_default();
            for (inside, path) in paths(module, code) {
                let Some(target) = resolve(&inside, &path, &modules, &reexports) else { continue };
                if target != *module {
                    uses.insert(target);
                }
            }
        }
        Ok(graph)
    }

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

fn collect_rs(dir: &Path, files: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_rs(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

/// The module a file below the source folder is: `crate`, or `crate::a::b`.
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

/// The code of a file without comments, string contents and `#[cfg(test)]` modules, which
/// may use anything.
fn code_only(text: &str) -> String {
    let mut code = String::new();
    let mut skip_test_module = false;
    let mut depth = 0usize;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.split("//").next().unwrap_or("");
        if line.trim() == "#[cfg(test)]"
            && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            skip_test_module = true;
            depth = 0;
            continue;
        }
        if skip_test_module {
            depth += line.matches('{').count();
            let closes = line.matches('}').count();
            if closes >= depth && line.contains('}') {
                skip_test_module = false;
            } else {
                depth -= closes;
            }
            continue;
        }
        let mut in_string = false;
        for c in line.chars() {
            if c == '"' {
                in_string = !in_string;
            }
            if !in_string {
                code.push(c);
            }
        }
        code.push('\n');
    }
    code
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

/// Every path in `module`'s code that may name a module of the crate (`crate::`,
/// `self::`, `super::` or a first segment followed by `::`), with brace groups expanded,
/// and the module it is written in: inline `mod name { ... }` blocks count, since `super`
/// inside one means the file's module.
fn paths(module: &str, code: &str) -> Vec<(String, Vec<String>)> {
    let tokens = tokenize(code);
    let mut found = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                inline.push((tokens[i + 1].clone(), depth));
            }
            _ => {}
        }
        let is_word = tokens[i].chars().all(|c| c.is_alphanumeric() || c == '_');
        let starts = is_word
            && tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let inside: Vec<&str> = std::iter::once(module)
                .chain(inline.iter().map(|(name, _)| name.as_str()))
                .collect();
            let mut group = Vec::new();
            i = expand(&tokens, i, Vec::new(), &mut group);
            found.extend(group.into_iter().map(|path| (inside.join("::"), path)));
        } else {
            i += 1;
        }
    }
    found
}

/// Reads the path at `tokens[i]` below `prefix`, expanding `{a, b::c}` groups; returns the
/// index after it.
fn expand(
    tokens: &[String],
    mut i: usize,
    mut prefix: Vec<String>,
    found: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                while tokens.get(i).is_some_and(|t| t != "}") {
                    if tokens[i] == "," {
                        i += 1;
                        continue;
                    }
                    i = expand(tokens, i, prefix.clone(), found);
                }
                return i + 1;
            }
            Some(word) if word.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                prefix.push(word.to_owned());
                if tokens.get(i + 1).is_some_and(|t| t == "::") {
                    i += 2;
                } else {
                    found.push(prefix);
                    return i + 1;
                }
            }
            _ => {
                found.push(prefix);
                return i;
            }
        }
    }
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&next) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(next);
                chars.next();
            }
            tokens.push(word);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push("::".to_owned());
        } else if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    tokens
}

/// Which module each name the crate root re-exports (`pub use crate::m::Name`) comes from.
fn reexports(root: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for (_, path) in paths("crate", root) {
        let Some(name) = path.last() else { continue };
        if let Some(module) = longest_module(&path, modules).filter(|m| m != "crate") {
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
        run(false).unwrap();
    }

    #[test]
    fn a_cycle_is_found_and_test_modules_are_ignored() {
        let modules: BTreeSet<String> =
            ["crate", "crate::a", "crate::b", "crate::b::c"].map(str::to_owned).into();
        let code = "use crate::{a::X, b::c::Y};\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
        let uses: Vec<_> = paths("crate::b", &code_only(code))
            .iter()
            .filter_map(|(inside, p)| resolve(inside, p, &modules, &BTreeMap::new()))
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
