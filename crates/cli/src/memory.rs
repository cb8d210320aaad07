//! How much memory the machine has and how much this process has used, for `--max-memory`
//! and `--stats`. Read from Linux's /proc; elsewhere unknown, and then no limit applies.

use std::fs;

/// The machine's memory (MemTotal), if known.
pub(crate) fn machine_bytes() -> Option<u64> {
    proc_field("/proc/meminfo", "MemTotal:")
}

/// The most resident memory this process has held so far (VmHWM), if known.
pub(crate) fn peak_resident_bytes() -> Option<u64> {
    proc_field("/proc/self/status", "VmHWM:")
}

/// The resident memory this process holds now (VmRSS), if known.
pub(crate) fn resident_bytes() -> Option<u64> {
    proc_field("/proc/self/status", "VmRSS:")
}

/// A field of a Linux /proc file, in bytes; unknown on other systems.
fn proc_field(path: &str, name: &str) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    kibibytes_field(&fs::read_to_string(path).ok()?, name)
}

/// The value of a `Name:   1234 kB` line, in bytes.
fn kibibytes_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(name))?;
    let kib: u64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Hands the allocator's freed heap back to the system where it can (glibc's
/// `malloc_trim`): the memory check's probe leaves freed lists in the heap of the thread
/// that starts the count, which would otherwise stay resident through the whole count.
pub(crate) fn hand_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free memory of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A byte count for people: `1.5 GiB`.
pub(crate) fn human(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", units[unit]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kibibyte_fields() {
        let text = "MemTotal:       24576000 kB\nMemFree:  100 kB\n";
        assert_eq!(kibibytes_field(text, "MemTotal:"), Some(24_576_000 * 1024));
        assert_eq!(kibibytes_field(text, "VmHWM:"), None);
    }

    #[test]
    fn prints_sizes_for_people() {
        assert_eq!(human(512), "512 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
    }
}
