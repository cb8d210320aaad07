//! What this processor can run, detected once, and proof of it as values.
//!
//! Each token below can only be made by constructors that check the processor first, so
//! holding one proves that the instructions it names are there. Code compiled for those
//! instructions (`#[target_feature]`) takes the token as an argument, so the `unsafe` call
//! into it rests on the token instead of on a comment that asks callers to be careful.
//! Values that run the instructions, such as the lane kernels' registers, carry a token,
//! so their operations are safe functions. "Ran the AVX-512 kernel on a processor without
//! it" cannot be written in safe code.
//!
//! The feature sets nest: every processor with AVX2 that we know of also has BMI1, BMI2,
//! POPCNT and LZCNT, so [`Avx2`] asks for all of them and the kernels may use them; [`Avx512`]
//! adds AVX-512F; [`Avx512Popcnt`] adds the byte, vector-length and vector popcount
//! extensions the join's pair test needs.

use std::sync::OnceLock;

/// What the processor has, as the kernels group it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Detected {
    bmi: bool,
    fast_pext: bool,
    avx2: bool,
    avx512: bool,
    avx512_popcnt: bool,
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Detected {
    use std::arch::is_x86_feature_detected as has;
    let bmi = has!("bmi1") && has!("bmi2") && has!("popcnt") && has!("lzcnt");
    let fast_pext = bmi && pext_in_hardware();
    let avx2 = bmi && has!("avx2");
    let avx512 = avx2 && has!("avx512f");
    let avx512_popcnt = avx512 && has!("avx512bw") && has!("avx512vl") && has!("avx512vpopcntdq");
    Detected { bmi, fast_pext, avx2, avx512, avx512_popcnt }
}

/// The makers whose processors the detection knows the `cpuid` leaves of.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vendor {
    Intel,
    Amd,
    Other,
}

#[cfg(target_arch = "x86_64")]
fn vendor() -> Vendor {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    let name: Vec<u8> =
        [vendor.ebx, vendor.edx, vendor.ecx].iter().flat_map(|word| word.to_le_bytes()).collect();
    match name.as_slice() {
        b"GenuineIntel" => Vendor::Intel,
        b"AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    }
}

/// Whether `pext` is one fast instruction here. AMD's processors before Zen 3 (family
/// 0x19) have it in microcode, tens of cycles per bit of the mask; other vendors than
/// Intel and AMD are not assumed to be fast.
#[cfg(target_arch = "x86_64")]
fn pext_in_hardware() -> bool {
    let (family, _) = family_and_model(std::arch::x86_64::__cpuid(1).eax);
    match vendor() {
        Vendor::Intel => true,
        Vendor::Amd => family >= 0x19,
        Vendor::Other => false,
    }
}

/// The family and model numbers of the signature `cpuid` gives in leaf 1, combined as
/// Linux computes and prints them: the extended family counts only where the base family
/// is 15, the extended model from family 6 on.
fn family_and_model(signature: u32) -> (u32, u32) {
    let base_family = (signature >> 8) & 0xf;
    let family =
        if base_family == 0xf { base_family + ((signature >> 20) & 0xff) } else { base_family };
    let base_model = (signature >> 4) & 0xf;
    let model = if family >= 6 { base_model | ((signature >> 12) & 0xf0) } else { base_model };
    (family, model)
}

/// The processor, as reports name it: what tells apart machines that share a model name
/// (an "AMD EPYC" may be a Zen 3, 4 or 5), whose speeds differ by more than twice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Processor {
    /// The maker's name for it (`AMD EPYC 7B13`), where it has one.
    pub name: Option<String>,
    /// Its family number, as Linux prints it in `/proc/cpuinfo` (25 for Zen 3 and 4, 26
    /// for Zen 5, 6 for Intel's cores to date).
    pub family: Option<u32>,
    /// Its model number within the family, as Linux prints it.
    pub model: Option<u32>,
    /// One core's first-level data cache, which the join's tables are sized by.
    pub l1_data_bytes: Option<usize>,
}

/// This processor, as `cpuid` describes it; the names the kernels use are
/// [`instruction_sets`].
#[cfg(target_arch = "x86_64")]
pub fn processor() -> Processor {
    use std::arch::x86_64::__cpuid;
    // The name is 48 bytes of leaves 0x80000002 to 0x80000004, ended by a zero byte.
    let name = (__cpuid(0x8000_0000).eax >= 0x8000_0004).then(|| {
        let bytes: Vec<u8> = (0x8000_0002..=0x8000_0004)
            .map(__cpuid)
            .flat_map(|words| [words.eax, words.ebx, words.ecx, words.edx])
            .flat_map(u32::to_le_bytes)
            .take_while(|&byte| byte != 0)
            .collect();
        String::from_utf8_lossy(&bytes).trim().to_owned()
    });
    let (family, model) = family_and_model(__cpuid(1).eax);
    Processor {
        name: name.filter(|name| !name.is_empty()),
        family: Some(family),
        model: Some(model),
        l1_data_bytes: detect_l1_data_bytes(),
    }
}

/// This processor: nothing known of it beyond x86.
#[cfg(not(target_arch = "x86_64"))]
pub fn processor() -> Processor {
    Processor::default()
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Detected {
    Detected::default()
}

/// The bytes of the first-level data cache of one core, where the processor says, by the
/// deterministic cache parameters of `cpuid` (leaf 4 on Intel, 0x8000001D on AMD), or on
/// AMD without them by the older leaf 0x80000005.
#[cfg(target_arch = "x86_64")]
fn detect_l1_data_bytes() -> Option<usize> {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let highest_extended = __cpuid(0x8000_0000).eax;
    let leaf = match vendor() {
        Vendor::Intel if __cpuid(0).eax >= 4 => 4,
        // AMD's leaf is there only with the topology extensions (bit 22 of ECX, 0x80000001),
        // which some hypervisors hide from their guests.
        Vendor::Amd
            if highest_extended >= 0x8000_001d && __cpuid(0x8000_0001).ecx >> 22 & 1 == 1 =>
        {
            0x8000_001d
        }
        // The older leaf gives the first-level data cache's KiB in the top byte of ECX.
        Vendor::Amd if highest_extended >= 0x8000_0005 => {
            let kib = (__cpuid(0x8000_0005).ecx >> 24) as usize;
            return (kib > 0).then_some(kib * 1024);
        }
        _ => return None,
    };
    (0..16)
        .map(|index| __cpuid_count(leaf, index))
        .take_while(|cache| cache.eax & 0x1f != 0)
        .find_map(|cache| {
            let (kind, level) = (cache.eax & 0x1f, (cache.eax >> 5) & 0x7);
            let field = |word: u32, shift: u32, bits: u32| {
                ((word >> shift) & ((1 << bits) - 1)) as usize + 1
            };
            let bytes = field(cache.ebx, 22, 10)
                * field(cache.ebx, 12, 10)
                * field(cache.ebx, 0, 12)
                * (cache.ecx as usize + 1);
            // Type 1 is a data cache.
            (kind == 1 && level == 1).then_some(bytes)
        })
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_l1_data_bytes() -> Option<usize> {
    None
}

/// The bytes of one core's first-level data cache; 32 KiB, the least of the processors
/// with AVX2 that we know of, where the processor does not say.
pub(crate) fn l1_data_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| detect_l1_data_bytes().unwrap_or(32 << 10))
}

/// Asks the cache for the line holding `item` ahead of a load that the processor cannot
/// see coming, such as a gather by indices; a hint, which changes no result.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE, which the prefetch needs, is part of every x86-64 processor, and a
        // prefetch of any address is never a fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

/// The processor's features, asked once per process.
fn detected() -> Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

/// The instruction sets the kernels choose by, spelled as Linux prints them in the
/// `flags` line of `/proc/cpuinfo` (which writes some AVX-512 extensions with an
/// underscore and some without): `avx512f`; `avx512_vpopcntdq`, standing also for the
/// AVX-512 BW and VL the join's pair test needs; `avx2`; and `bmi2`, standing also for
/// BMI1, POPCNT and LZCNT.
pub const KERNEL_INSTRUCTION_SETS: [&str; 4] = ["avx512f", "avx512_vpopcntdq", "avx2", "bmi2"];

/// Those of [`KERNEL_INSTRUCTION_SETS`] that this processor has, each only where the
/// kernels would use it.
pub fn instruction_sets() -> Vec<&'static str> {
    let found = detected();
    let held = [found.avx512, found.avx512_popcnt, found.avx2, found.bmi];
    KERNEL_INSTRUCTION_SETS
        .into_iter()
        .zip(held)
        .filter_map(|(name, has)| has.then_some(name))
        .collect()
}

macro_rules! token {
    ($(#[$doc:meta])* $name:ident, $field:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) struct $name {
            /// Private, so that only the constructor below makes one.
            _proof: (),
        }

        impl $name {
            /// The token, if this processor has the instructions it stands for.
            #[inline]
            pub(crate) fn new() -> Option<$name> {
                detected().$field.then_some($name { _proof: () })
            }
        }
    };
}

token! {
    /// Proof of BMI1, BMI2, POPCNT and LZCNT: the scalar kernel's bit tricks in one
    /// instruction each.
    Bmi, bmi
}

token! {
    /// Proof of BMI2's `pext` as one fast instruction, not microcode.
    FastPext, fast_pext
}

token! {
    /// Proof of AVX2, with everything [`Bmi`] stands for.
    Avx2, avx2
}

token! {
    /// Proof of AVX-512F, with everything [`Avx2`] stands for.
    Avx512, avx512
}

token! {
    /// Proof of AVX-512F, BW, VL and VPOPCNTDQ, with everything [`Avx2`] stands for.
    Avx512Popcnt, avx512_popcnt
}

impl Avx512 {
    /// The narrower proof this one contains.
    pub(crate) fn avx2(self) -> Avx2 {
        Avx2 { _proof: () }
    }
}

impl Avx512Popcnt {
    /// The narrower proof this one contains.
    pub(crate) fn avx2(self) -> Avx2 {
        Avx2 { _proof: () }
    }
}

impl Avx2 {
    /// The narrower proof this one contains.
    pub(crate) fn bmi(self) -> Bmi {
        Bmi { _proof: () }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_level_data_cache_is_the_size_linux_reports() {
        let reported = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/size");
        let level = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/level");
        let kind = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/type");
        if let (Ok(size), Ok(level), Ok(kind)) = (reported, level, kind)
            && level.trim() == "1"
            && kind.trim() == "Data"
            && let Some(kib) = size.trim().strip_suffix('K').and_then(|k| k.parse::<usize>().ok())
            && let Some(detected) = detect_l1_data_bytes()
        {
            assert_eq!(detected, kib << 10);
        }
        assert!(l1_data_bytes() >= 16 << 10);
    }

    /// Signatures of leaf 1 from the processors we run on, and one from before family 6.
    #[test]
    fn the_family_and_model_are_those_linux_prints() {
        assert_eq!(family_and_model(0x00a0_0f11), (25, 1), "AMD Zen 3");
        assert_eq!(family_and_model(0x00a1_0f11), (25, 17), "AMD Zen 4");
        assert_eq!(family_and_model(0x00b0_0f21), (26, 2), "AMD Zen 5");
        assert_eq!(family_and_model(0x0008_06f8), (6, 143), "Intel Sapphire Rapids");
        assert_eq!(family_and_model(0x0001_0543), (5, 4), "no extended model below family 6");
    }

    /// Where Linux says what the processor is, `cpuid` says the same.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_processor_is_the_one_linux_names() {
        let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else { return };
        let field = |name: &str| {
            let line =
                cpuinfo.lines().find(|line| line.split(':').next().map(str::trim) == Some(name))?;
            Some(line.split_once(':')?.1.trim().to_owned())
        };
        let number = |name| field(name).and_then(|value| value.parse::<u32>().ok());
        let found = processor();
        // gVisor's /proc/cpuinfo says "unknown" of every processor and computes the
        // family its own way: there is no Linux to agree with.
        if field("model name").as_deref() == Some("unknown") {
            return;
        }
        // Without a brand string Linux prints the family and model instead of a name.
        if found.name.is_some() {
            assert_eq!(found.name, field("model name").filter(|name| !name.is_empty()));
        }
        assert_eq!((found.family, found.model), (number("cpu family"), number("model")));
    }

    #[test]
    fn wider_tokens_imply_narrower_ones() {
        assert!(Avx512Popcnt::new().is_none() || Avx512::new().is_some());
        assert!(Avx512::new().is_none() || Avx2::new().is_some());
        assert!(Avx2::new().is_none() || Bmi::new().is_some());
        assert!(FastPext::new().is_none() || Bmi::new().is_some());
    }

    #[test]
    fn the_instruction_sets_named_are_the_tokens_held_and_the_processor_flags() {
        let sets = instruction_sets();
        let [avx512, avx512_popcnt, avx2, bmi] = KERNEL_INSTRUCTION_SETS;
        assert_eq!(sets.contains(&avx512), Avx512::new().is_some());
        assert_eq!(sets.contains(&avx512_popcnt), Avx512Popcnt::new().is_some());
        assert_eq!(sets.contains(&avx2), Avx2::new().is_some());
        assert_eq!(sets.contains(&bmi), Bmi::new().is_some());
        if let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") {
            let flags = cpuinfo.lines().find(|line| line.starts_with("flags")).unwrap_or("");
            for set in sets {
                assert!(flags.split_whitespace().any(|flag| flag == set), "{set} in {flags}");
            }
        }
    }

    /// The x86 flags of these families as Linux names them in `/proc/cpuinfo`
    /// (arch/x86/include/asm/cpufeatures.h): a name of ours outside this list would never
    /// match a processor's flags, whatever processor the tests run on.
    const LINUX_FLAGS: [&str; 24] = [
        "avx",
        "avx2",
        "bmi1",
        "bmi2",
        "popcnt",
        "abm",
        "avx512f",
        "avx512dq",
        "avx512ifma",
        "avx512pf",
        "avx512er",
        "avx512cd",
        "avx512bw",
        "avx512vl",
        "avx512vbmi",
        "avx512_vbmi2",
        "avx512_vnni",
        "avx512_bitalg",
        "avx512_vpopcntdq",
        "avx512_4vnniw",
        "avx512_4fmaps",
        "avx512_vp2intersect",
        "avx512_bf16",
        "avx512_fp16",
    ];

    #[test]
    fn every_instruction_set_is_spelled_as_linux_prints_it() {
        for set in KERNEL_INSTRUCTION_SETS {
            assert!(LINUX_FLAGS.contains(&set), "{set} is not a flag Linux prints");
        }
        // Whatever this processor's flags of these families are, the list spells them so.
        if let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") {
            let flags = cpuinfo.lines().find(|line| line.starts_with("flags")).unwrap_or("");
            for flag in flags.split_whitespace().filter(|flag| flag.starts_with("avx512")) {
                assert!(LINUX_FLAGS.contains(&flag), "{flag} is missing from LINUX_FLAGS");
            }
        }
    }
}
