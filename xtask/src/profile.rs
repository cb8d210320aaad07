//! `cargo xtask profile -- FILE...`: the checked tasks' profile of each
//! `nqueens estimate --check K --profile --json` output, one table row per file, so that
//! runs of two builds taken in turns can be read side by side.

use std::path::Path;

use serde_json::Value;

/// The parts of the profile shown, by the names the binary gives them.
const PARTS: [&str; 5] = ["sorting", "pair count", "readying north boards", "signatures", "rest"];

/// The counters shown per solution.
const PER_SOLUTION: [&str; 3] = ["pairs tested", "group tests", "lookups"];

pub(crate) fn run(files: &[String]) -> Result<(), String> {
    if files.is_empty() {
        return Err("profile needs the files after --".into());
    }
    let parts = PARTS.map(|part| format!(" {part} s |")).concat();
    let counters = PER_SOLUTION.map(|counter| format!(" {counter} / solution |")).concat();
    println!("| file | kernel | tasks | checked s | core-ns / solution |{parts}{counters}");
    println!(
        "| --- | --- | ---: | ---: | ---: |{}",
        " ---: |".repeat(PARTS.len() + PER_SOLUTION.len())
    );
    for file in files {
        println!("{}", row(Path::new(file))?);
    }
    Ok(())
}

fn row(file: &Path) -> Result<String, String> {
    let (name, json) = crate::workspace::named_json(file)?;
    let check = &json["check"];
    let profile = &check["profile"];
    if !profile.is_object() {
        return Err(format!(
            "{}: no checked profile (run with --check K --profile)",
            file.display()
        ));
    }
    let named = |list: &Value, field: &str, name: &str| {
        let items = list.as_array().into_iter().flatten();
        items.filter(|item| item["name"] == name).find_map(|item| item[field].as_f64())
    };
    let solutions = named(&profile["counters"], "value", "solutions")
        .filter(|&solutions| solutions > 0.0)
        .ok_or_else(|| format!("{}: the profile counts no solutions", file.display()))?;
    let seconds = check["counted_s"].as_f64().unwrap_or(0.0);
    let tasks = check["tasks"].as_array().map_or(0, Vec::len);
    let kernel = json["kernel"].as_str().unwrap_or("?");
    let mut row = format!(
        "| {name} | {kernel} | {tasks} | {seconds:.2} | {:.3} |",
        seconds * 1e9 / solutions
    );
    for part in PARTS {
        let spent = named(&profile["parts"], "seconds", part);
        row += &spent.map_or_else(|| " - |".into(), |spent| format!(" {spent:.2} |"));
    }
    for counter in PER_SOLUTION {
        let value = named(&profile["counters"], "value", counter);
        row += &value.map_or_else(|| " - |".into(), |value| format!(" {:.2} |", value / solutions));
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_gives_the_cost_per_solution_and_the_parts_of_a_checked_profile() {
        let file = std::env::temp_dir().join(format!("xtask-profile-{}.json", std::process::id()));
        let json = r#"{"kernel": "avx2", "check": {"counted_s": 3.0, "tasks": [{}, {}],
            "profile": {"parts": [{"name": "sorting", "seconds": 0.5},
                                  {"name": "pair count", "seconds": 2.0}],
                        "counters": [{"name": "solutions", "value": 2000000000},
                                     {"name": "pairs tested", "value": 160000000000}]}}}"#;
        std::fs::write(&file, json).unwrap();
        let row = row(&file);
        std::fs::remove_file(&file).unwrap();
        let cells: Vec<String> = row.unwrap().split('|').map(|cell| cell.trim().into()).collect();
        // The file, kernel, tasks, seconds, core-ns per solution, five parts, three counters.
        assert_eq!(cells[2..6], ["avx2", "2", "3.00", "1.500"]);
        assert_eq!(cells[6..11], ["0.50", "2.00", "-", "-", "-"]);
        assert_eq!(cells[11..14], ["80.00", "-", "-"]);
    }

    #[test]
    fn an_estimate_without_a_checked_profile_is_an_error() {
        let file =
            std::env::temp_dir().join(format!("xtask-noprofile-{}.json", std::process::id()));
        std::fs::write(&file, r#"{"kernel": "avx2", "check": null}"#).unwrap();
        let row = row(&file);
        std::fs::remove_file(&file).unwrap();
        assert!(row.unwrap_err().contains("no checked profile"));
        assert!(run(&[]).is_err());
    }
}
