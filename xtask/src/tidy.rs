//! Tidy tests: what the crate graph and the compiler cannot say about the tree, checked on
//! the files as they stand, line by line. The layering between crates is the crate graph
//! (checked here against the one ARCHITECTURE.md draws); inside a crate, and for words a
//! layer must not use, a rule is a few lines of search. Comments are not read (a line's
//! code ends at `//`), nor is anything from a file's `#[cfg(test)]` on, nor a module of
//! tests in a file of its own (`tests.rs`): tests may use anything.

use std::path::{Path, PathBuf};

use crate::workspace::project_root;

/// The folders that hold a crate's Rust sources, whatever their depth.
const SOURCE_ROOTS: [&str; 4] = ["src", "tests", "benches", "examples"];

/// The file kinds a code map names, told apart from words that merely hold a dot.
const NAMED_EXTENSIONS: [&str; 5] = ["rs", "toml", "json", "md", "sh"];

/// Each crate of ours and the crates of ours it may depend on (dev-dependencies aside):
/// the layers of ARCHITECTURE.md.
const CRATE_GRAPH: [(&str, &[&str]); 6] = [
    ("crates/random", &[]),
    ("crates/core", &["nqueens-random"]),
    ("crates/scheduler", &["nqueens-random"]),
    ("crates/plan", &["nqueens-core", "nqueens-random", "nqueens-scheduler"]),
    ("crates/cli", &["nqueens-core", "nqueens-plan", "nqueens-random", "nqueens-scheduler"]),
    ("crates/test-support", &[]),
];

/// A rule on words: files (a folder ending in `/` stands for every Rust file below it)
/// whose code must not hold any of `words`, and why.
struct WordRule {
    files: &'static [&'static str],
    words: &'static [Word],
    why: &'static str,
}

enum Word {
    /// A whole identifier, or a path when it holds `::`.
    Whole(&'static str),
    /// Anywhere, string literals included.
    Within(&'static str),
}

const WORD_RULES: [WordRule; 4] = [
    WordRule {
        files: &["crates/core/src/backtrack/", "crates/core/src/join/"],
        words: &[Word::Whole("Problem"), Word::Whole("Method"), Word::Within("problem::")],
        why: "an engine knows its own tasks, not the Problem or the Method that chose it",
    },
    WordRule {
        files: &["crates/core/src/error.rs"],
        words: &[Word::Within("join::"), Word::Within("backtrack::")],
        why: "errors are data about what was asked, not about one engine",
    },
    WordRule {
        files: &["crates/cli/src/"],
        words: &[
            Word::Whole("Method::Plain"),
            Word::Whole("Method::Half"),
            Word::Whole("Method::Eightfold"),
            Word::Whole("Method::Join"),
            Word::Within("JOIN_"),
            Word::Within("half-board"),
        ],
        why: "the CLI names no engine: it knows methods through Method::ALL, auto and fastest, \
              and the rest through the Problem",
    },
    WordRule {
        files: &["crates/plan/src/"],
        words: &[
            Word::Within("Method::"),
            Word::Within("JOIN_"),
            Word::Within("half-board"),
            Word::Within("row set"),
        ],
        why: "the plan crate plans any engine's count through the Problem's tasks, children, \
              units, pieces and charges",
    },
];

/// The only files with `unsafe` code: the vector kernels, and the system calls no crate
/// of ours wraps. A new one belongs here only with a reason as good.
const UNSAFE_FILES: [&str; 19] = [
    "crates/cli/src/memory.rs",
    "crates/cli/src/output.rs",
    "crates/cli/src/signals.rs",
    "crates/cli/tests/provenance.rs",
    "crates/core/src/backtrack/lanes/avx2.rs",
    "crates/core/src/backtrack/lanes/avx512.rs",
    "crates/core/src/backtrack/lanes/mod.rs",
    "crates/core/src/backtrack/lanes/search.rs",
    "crates/core/src/backtrack/search.rs",
    "crates/core/src/join/pair_count/bucket.rs",
    "crates/core/src/join/pair_count/mod.rs",
    "crates/core/src/join/pair_count/query.rs",
    "crates/core/src/join/pair_count/tables.rs",
    "crates/core/src/join/refill.rs",
    "crates/core/src/join/room.rs",
    "crates/core/src/join/signatures.rs",
    "crates/core/src/simd.rs",
    "crates/scheduler/src/lock.rs",
    "xtask/src/measure.rs",
];

/// The library crates, which write to no terminal: their callers decide what is said.
const QUIET_CRATES: [&str; 4] =
    ["crates/random/src/", "crates/core/src/", "crates/scheduler/src/", "crates/plan/src/"];

/// The macros that print, which a library leaves to its callers.
const PRINTING: [&str; 5] = ["print!(", "println!(", "eprint!(", "eprintln!(", "dbg!("];

/// A Rust file of the workspace: its path from the root, its text, and its lines of code
/// (comments cut off, and nothing from its tests on).
struct Source {
    path: String,
    text: String,
    code: Vec<String>,
}

impl Source {
    fn new(path: &str, text: String) -> Source {
        let is_tests = path.ends_with("/tests.rs");
        let code = if is_tests { Vec::new() } else { code_lines(&text) };
        Source { path: path.to_owned(), text, code }
    }
}

/// Every Rust file of the crates and xtask, in path order.
fn sources(root: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    for folder in source_folders(root) {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for path in entries.flatten().map(|entry| entry.path()) {
            if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let relative = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            Source::new(&relative, text)
        })
        .collect()
}

/// The code of `text`, line by line: each line up to its `//`, and none from the first
/// `#[cfg(test)]`, which starts a file's tests by this workspace's custom.
fn code_lines(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .map(|line| line.split("//").next().unwrap_or("").to_owned())
        .collect()
}

fn covers(files: &[&str], path: &str) -> bool {
    files
        .iter()
        .any(|file| if file.ends_with('/') { path.starts_with(file) } else { path == *file })
}

/// Whether `code` holds `word` with no identifier character either side.
fn holds_whole(code: &str, word: &str) -> bool {
    let is_identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        !before.is_some_and(is_identifier) && !after.is_some_and(is_identifier)
    })
}

fn word_problems(sources: &[Source]) -> Vec<String> {
    let mut problems = Vec::new();
    for rule in &WORD_RULES {
        for source in sources.iter().filter(|source| covers(rule.files, &source.path)) {
            for (number, code) in source.code.iter().enumerate() {
                for word in rule.words {
                    let (held, text) = match word {
                        Word::Whole(text) => (holds_whole(code, text), text),
                        Word::Within(text) => (code.contains(text), text),
                    };
                    if held {
                        problems.push(format!(
                            "{}:{}: `{text}`: {}",
                            source.path,
                            number + 1,
                            rule.why
                        ));
                    }
                }
            }
        }
    }
    problems
}

fn unsafe_problems(sources: &[Source], root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for path in UNSAFE_FILES {
        if !root.join(path).is_file() {
            problems.push(format!("{path} is listed as holding unsafe code, and is gone"));
        }
    }
    // This file names what it looks for.
    for source in sources.iter().filter(|source| source.path != "xtask/src/tidy.rs") {
        let lines: Vec<&str> = source.text.lines().collect();
        let unsafe_lines: Vec<usize> = (lines.iter().enumerate())
            .filter(|(_, line)| holds_whole(line.split("//").next().unwrap_or(""), "unsafe"))
            .map(|(number, _)| number)
            .collect();
        if !unsafe_lines.is_empty() && !UNSAFE_FILES.contains(&source.path.as_str()) {
            problems.push(format!(
                "{}:{}: unsafe code outside the files that may hold it (tidy.rs)",
                source.path,
                unsafe_lines[0] + 1
            ));
        }
        for number in unsafe_lines.into_iter().filter(|&n| lines[n].contains("unsafe fn ")) {
            let docs = lines[..number]
                .iter()
                .rev()
                .take_while(|line| {
                    let line = line.trim();
                    line.starts_with("///") || line.starts_with("#[")
                })
                .any(|line| line.contains("# Safety"));
            if !docs {
                problems.push(format!(
                    "{}:{}: an unsafe fn without a `# Safety` section saying what its caller owes",
                    source.path,
                    number + 1
                ));
            }
        }
    }
    problems
}

fn printing_problems(sources: &[Source]) -> Vec<String> {
    let mut problems = Vec::new();
    for source in sources.iter().filter(|source| covers(&QUIET_CRATES, &source.path)) {
        for (number, code) in source.code.iter().enumerate() {
            if let Some(name) = PRINTING.iter().find(|name| holds_whole(code, name)) {
                problems.push(format!(
                    "{}:{}: `{name}` in a library: return what there is to say to the caller",
                    source.path,
                    number + 1
                ));
            }
        }
    }
    problems
}

/// The crates of ours each manifest depends on (its `[dependencies]`, not its dev- or
/// build-dependencies), against [`CRATE_GRAPH`].
fn crate_graph_problems(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut listed: Vec<&str> = CRATE_GRAPH.iter().map(|(folder, _)| *folder).collect();
    listed.push("xtask");
    for krate in std::fs::read_dir(root.join("crates")).into_iter().flatten().flatten() {
        let folder = format!("crates/{}", krate.file_name().to_string_lossy());
        if !listed.contains(&folder.as_str()) {
            problems.push(format!("{folder} is not in tidy.rs's CRATE_GRAPH"));
        }
    }
    for (folder, allowed) in CRATE_GRAPH {
        let manifest = std::fs::read_to_string(root.join(folder).join("Cargo.toml"));
        let manifest = manifest.unwrap_or_default();
        let mut section = "";
        let mut ours = Vec::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
            } else if section == "[dependencies]" && line.starts_with("nqueens-") {
                ours.push(line.split(['.', ' ', '=']).next().unwrap_or(line).to_owned());
            }
        }
        ours.sort();
        if ours != allowed {
            problems.push(format!(
                "{folder} depends on {ours:?}, where ARCHITECTURE.md's layers allow {allowed:?}"
            ));
        }
    }
    problems
}

/// What is wrong with the code map in `architecture` (the text of ARCHITECTURE.md) against
/// the tree at `root`: paths it names that do not exist, and source folders it leaves out.
/// A name without a slash is a file of the folders in the `###` heading it stands under.
fn code_map_problems(architecture: &str, root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    if !architecture.contains("\n## Code map\n") {
        problems.push("ARCHITECTURE.md has no \"## Code map\" section".to_owned());
    }
    let mut named_folders = Vec::new();
    let mut heading_folders: Vec<PathBuf> = Vec::new();
    for line in architecture.lines() {
        let names = path_like_words(line);
        if line.starts_with("## ") {
            heading_folders.clear();
        } else if line.starts_with("### ") {
            heading_folders = names.iter().map(|name| root.join(name)).collect();
        }
        for name in names {
            let candidates: Vec<PathBuf> = if name.contains('/') {
                vec![root.join(&name)]
            } else {
                heading_folders.iter().map(|folder| folder.join(&name)).collect()
            };
            match candidates.iter().find(|path| path.exists()) {
                Some(path) if name.ends_with('/') => named_folders.push(path.clone()),
                Some(_) => {}
                None if candidates.is_empty() => {
                    problems.push(format!("ARCHITECTURE.md names `{name}` without its folder"))
                }
                None => {
                    problems.push(format!("ARCHITECTURE.md names `{name}`, which is not there"))
                }
            }
        }
    }
    for folder in source_folders(root) {
        if !named_folders.contains(&folder) {
            let relative = folder.strip_prefix(root).unwrap_or(&folder);
            problems.push(format!("ARCHITECTURE.md does not name `{}/`", relative.display()));
        }
    }
    problems
}

/// The words of `line` that name a folder (ending in a slash) or a file of a kind the map
/// names.
fn path_like_words(line: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    line.split(|c: char| !is_path_char(c))
        .map(|word| word.trim_start_matches('.').trim_end_matches('.'))
        .filter(|word| {
            let folder = word.len() > 1 && word.ends_with('/');
            let file = word.rsplit_once('.').is_some_and(|(stem, extension)| {
                !stem.is_empty() && NAMED_EXTENSIONS.contains(&extension)
            });
            folder || file
        })
        .map(str::to_owned)
        .collect()
}

/// Every folder under a crate's source roots that holds a Rust file of its own.
fn source_folders(root: &Path) -> Vec<PathBuf> {
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    crates.push(root.join("xtask"));
    let mut folders = Vec::new();
    for source_root in crates.iter().flat_map(|krate| SOURCE_ROOTS.map(|name| krate.join(name))) {
        collect_rust_folders(&source_root, &mut folders);
    }
    folders.sort();
    folders
}

fn collect_rust_folders(folder: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    let mut holds_rust = false;
    for path in entries.flatten().map(|entry| entry.path()) {
        if path.is_dir() {
            collect_rust_folders(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            holds_rust = true;
        }
    }
    if holds_rust {
        found.push(folder.to_owned());
    }
}

#[test]
fn the_code_map_names_what_is_there_and_every_source_folder() {
    let root = project_root();
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let problems = code_map_problems(&architecture, &root);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_missing_file_and_an_unnamed_folder_are_caught() {
    let root = std::env::temp_dir().join(format!("nqueens-tidy-{}", std::process::id()));
    let nested = root.join("crates/toy/src/nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(root.join("crates/toy/src/lib.rs"), "").unwrap();
    std::fs::write(nested.join("deep.rs"), "").unwrap();
    let map = "# A\n\n## Code map\n\n### `crates/toy/src/`\n\nlib.rs and gone.rs.\n\n## Next\n\
               `crates/toy/src/lib.rs` is there; a bare `lib.rs` has no folder here.\n";
    let problems = code_map_problems(map, &root);
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(
        problems,
        [
            "ARCHITECTURE.md names `gone.rs`, which is not there",
            "ARCHITECTURE.md names `lib.rs` without its folder",
            "ARCHITECTURE.md does not name `crates/toy/src/nested/`",
        ]
    );
}

#[test]
fn the_crate_graph_is_the_layering() {
    let problems = crate_graph_problems(&project_root());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_layer_uses_the_words_of_another() {
    let problems = word_problems(&sources(&project_root()));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn unsafe_code_stays_in_its_files_and_says_what_it_owes() {
    let root = project_root();
    let problems = unsafe_problems(&sources(&root), &root);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_libraries_print_nothing() {
    let problems = printing_problems(&sources(&project_root()));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn each_rule_catches_a_breach_and_skips_comments_and_tests() {
    let source = |path: &str, text: &str| Source::new(path, text.to_owned());
    let breaches = [
        source("crates/core/src/join/walk.rs", "use crate::problem::Problem;\n"),
        source("crates/cli/src/count.rs", "let m = Method::Join; // Method::Half\n"),
        source("crates/plan/src/check.rs", "let what = \"a row set\";\n"),
        source("crates/core/src/join/split.rs", "fn f() {}\n#[cfg(test)]\nuse crate::Method;\n"),
        source("crates/core/src/error.rs", "MethodSize { method: NAME } // the Method\n"),
    ];
    let problems = word_problems(&breaches);
    let paths: Vec<&str> = problems.iter().map(|p| p.split(':').next().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "crates/core/src/join/walk.rs",
            "crates/core/src/join/walk.rs",
            "crates/cli/src/count.rs",
            "crates/plan/src/check.rs"
        ],
        "{problems:?}"
    );
    let printing = [source("crates/core/src/lib.rs", "fn f() { println!(\"x\"); }\n")];
    assert_eq!(printing_problems(&printing).len(), 1);
    assert!(holds_whole("a unsafe {", "unsafe") && !holds_whole("unsafe_op", "unsafe"));
}

#[test]
fn unsafe_code_elsewhere_and_an_undocumented_unsafe_fn_are_caught() {
    let text = "/// Doubles.\nunsafe fn double(x: u8) -> u8 {\n    x * 2\n}\n";
    let source = Source::new("crates/toy/src/lib.rs", text.to_owned());
    // A tree without the listed files: each is reported gone, which this test passes over.
    let problems = unsafe_problems(&[source], Path::new("/nonexistent"));
    let ours: Vec<&String> = problems.iter().filter(|p| p.starts_with("crates/toy")).collect();
    assert_eq!(ours.len(), 2, "{problems:?}");
    assert!(ours[0].contains("outside the files") && ours[1].contains("# Safety"), "{ours:?}");
}
