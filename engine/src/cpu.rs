//! The CPU check: a binary built for more than the CPU it is started on
//! (a release build for x86-64-v3, AVX2, on a CPU without AVX2) prints one
//! line naming the build to use instead, and exits, rather than dying of an
//! illegal instruction.
//!
//! With `-C target-cpu=x86-64-v3` the compiler may use the level's
//! instructions anywhere in the code it compiles, the standard library's
//! start-up included (a Windows build compiles the standard library too):
//! every SSE instruction becomes a VEX one under AVX, and BMI's `andn` or
//! `shlx` can turn up in plain integer code. `#[target_feature]` can only add
//! instructions, never take them away, so no Rust function is safe to run
//! before the check. The check is therefore naked functions (assembly to
//! which the compiler adds nothing) that use baseline x86-64 instructions
//! only, registered by `main.rs` to run before any compiled code of the
//! binary: from `.preinit_array` on Linux (before every constructor, the
//! standard library's included), from the C runtime's first initializer
//! slot, `.CRT$XCAA`, on Windows (before the standard library's `.CRT$XCT`).
//! Before that slot Windows runs only the MinGW start-up code (compiled for
//! baseline x86-64) and the TLS callbacks, among them the standard
//! library's, which on process attach only compares its argument and
//! returns (a `cmp`, `test` and branches in the disassembly of the win7
//! builds).
//!
//! What the build needs is worked out when it is compiled, from the target
//! features it is compiled with (`cfg!(target_feature)`): a release build's
//! level, or whatever `target-cpu=native` gave a local build.

/// What the CPU and the OS offer, as four words: leaf 1's ECX, leaf 7's EBX,
/// leaf 0x8000_0001's ECX (0 where a leaf is missing) and the low half of
/// XCR0 (the register state the OS saves; 0 without OSXSAVE).
pub type Words = [u32; 4];

const LEAF1_ECX: usize = 0;
const LEAF7_EBX: usize = 1;
const EXT1_ECX: usize = 2;
const XCR0: usize = 3;

const fn bits(word: usize, mask: u32) -> Words {
    let mut words = [0; 4];
    words[word] = mask;
    words
}

const fn union(a: Words, b: Words) -> Words {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

/// XCR0: the OS saves the XMM and YMM registers (AVX may be used).
const AVX_STATE: u32 = 0b110;
/// XCR0: and the opmask and ZMM registers (AVX-512 may be used).
const AVX512_STATE: u32 = 0b1110_0110;
/// LAHF and SAHF in 64-bit mode: part of x86-64-v2, but not a target
/// feature that stable Rust reports.
const LAHF: Words = bits(EXT1_ECX, 1);

/// A target feature Rust reports, whether this build was compiled with it,
/// and the bits that show it.
struct Feature {
    name: &'static str,
    enabled: bool,
    words: Words,
}

macro_rules! feature {
    ($name:literal, $words:expr) => {
        Feature { name: $name, enabled: cfg!(target_feature = $name), words: $words }
    };
}

const AVX: Words = union(bits(LEAF1_ECX, 1 << 27 | 1 << 28), bits(XCR0, AVX_STATE));
const AVX512: Words = union(AVX, bits(XCR0, AVX512_STATE));

/// Every feature of the x86-64 levels (Intel SDM vol. 2, CPUID).
const FEATURES: [Feature; 20] = [
    feature!("sse3", bits(LEAF1_ECX, 1)),
    feature!("ssse3", bits(LEAF1_ECX, 1 << 9)),
    feature!("fma", union(AVX, bits(LEAF1_ECX, 1 << 12))),
    feature!("cmpxchg16b", bits(LEAF1_ECX, 1 << 13)),
    feature!("sse4.1", bits(LEAF1_ECX, 1 << 19)),
    feature!("sse4.2", bits(LEAF1_ECX, 1 << 20)),
    feature!("movbe", bits(LEAF1_ECX, 1 << 22)),
    feature!("popcnt", bits(LEAF1_ECX, 1 << 23)),
    feature!("xsave", bits(LEAF1_ECX, 1 << 26)),
    feature!("avx", AVX),
    feature!("f16c", union(AVX, bits(LEAF1_ECX, 1 << 29))),
    feature!("bmi1", bits(LEAF7_EBX, 1 << 3)),
    feature!("avx2", union(AVX, bits(LEAF7_EBX, 1 << 5))),
    feature!("bmi2", bits(LEAF7_EBX, 1 << 8)),
    feature!("avx512f", union(AVX512, bits(LEAF7_EBX, 1 << 16))),
    feature!("avx512dq", union(AVX512, bits(LEAF7_EBX, 1 << 17))),
    feature!("avx512cd", union(AVX512, bits(LEAF7_EBX, 1 << 28))),
    feature!("avx512bw", union(AVX512, bits(LEAF7_EBX, 1 << 30))),
    feature!("avx512vl", union(AVX512, bits(LEAF7_EBX, 1 << 31))),
    feature!("lzcnt", bits(EXT1_ECX, 1 << 5)),
];

/// The target features each level adds to the one below
/// (`rustc --print cfg -C target-cpu=x86-64-v2` etc.).
const V2: &[&str] = &["cmpxchg16b", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"];
const V3: &[&str] = &["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"];
const V4: &[&str] = &["avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"];

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn find(name: &str) -> usize {
    let mut i = 0;
    while i < FEATURES.len() {
        if same(FEATURES[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("a level names a feature missing from FEATURES")
}

/// The bits of `names`, and whether this build was compiled with them all.
const fn features(names: &[&str]) -> (Words, bool) {
    let (mut words, mut enabled) = ([0; 4], true);
    let mut i = 0;
    while i < names.len() {
        let at = find(names[i]);
        words = union(words, FEATURES[at].words);
        enabled &= FEATURES[at].enabled;
        i += 1;
    }
    (words, enabled)
}

/// What a CPU needs for each level, 2 to 4 (levels are cumulative).
pub static LEVEL_V2: Words = union(features(V2).0, LAHF);
pub static LEVEL_V3: Words = union(LEVEL_V2, features(V3).0);
pub static LEVEL_V4: Words = union(LEVEL_V3, features(V4).0);

/// The level this build was compiled for: 1 (baseline x86-64) to 4.
pub const BUILT: usize = match (features(V2).1, features(V3).1, features(V4).1) {
    (true, true, true) => 4,
    (true, true, false) => 3,
    (true, false, _) => 2,
    (false, _, _) => 1,
};

/// What this build needs: its level and every other feature it was
/// compiled with (a `target-cpu=native` build may have more than a level).
pub static REQUIRED: Words = {
    let mut words = if BUILT >= 2 { LAHF } else { [0; 4] };
    let mut i = 0;
    while i < FEATURES.len() {
        if FEATURES[i].enabled {
            words = union(words, FEATURES[i].words);
        }
        i += 1;
    }
    words
};

/// The levels' names, by number (0 unused), as release file names use them.
pub const LEVEL_NAMES: [&str; 5] = ["x86-64", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"];
const LEVEL_NEEDS: [&str; 5] = ["", "", "POPCNT and SSE4.2", "AVX2, BMI2 and FMA", "AVX-512"];
const OS: &str = if cfg!(windows) { "windows" } else { "linux" };
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The level this binary was built for, e.g. `x86-64-v3`.
pub fn build_level() -> &'static str {
    LEVEL_NAMES[BUILT]
}

/// The line for a CPU whose best level is `best` and that cannot run a
/// build for level `built`, in pieces (`""` pads them to a fixed count).
pub const fn message_parts(built: usize, best: usize) -> [&'static str; 13] {
    let head = "Backrank ";
    if best >= built {
        // Only a `target-cpu=native` build can need more than its level.
        [
            head,
            VERSION,
            ": this build was compiled for another CPU's instructions (target-cpu=native), ",
            "which this CPU lacks; build it on this machine (make) or use a release build",
            "\n",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
        ]
    } else if best < 2 {
        [
            head,
            VERSION,
            ": this ",
            LEVEL_NAMES[built],
            " build needs ",
            LEVEL_NEEDS[built],
            ", which this CPU lacks, and no release build runs on it: ",
            "build Backrank from source on this machine (make)",
            "\n",
            "",
            "",
            "",
            "",
        ]
    } else {
        [
            head,
            VERSION,
            ": this ",
            LEVEL_NAMES[built],
            " build needs ",
            LEVEL_NEEDS[built],
            ", which this CPU lacks; use the ",
            LEVEL_NAMES[best],
            " build instead: backrank-",
            VERSION,
            "-",
            OS,
            const_join_suffix(best),
        ]
    }
}

/// `-x86-64-v2` and the file's suffix, then the newline.
const fn const_join_suffix(best: usize) -> &'static str {
    match (best, cfg!(windows)) {
        (2, false) => "-x86-64-v2\n",
        (3, false) => "-x86-64-v3\n",
        (4, false) => "-x86-64-v4\n",
        (2, true) => "-x86-64-v2.exe\n",
        (3, true) => "-x86-64-v3.exe\n",
        (4, true) => "-x86-64-v4.exe\n",
        _ => "\n",
    }
}

const fn length(parts: &[&str]) -> usize {
    let (mut total, mut i) = (0, 0);
    while i < parts.len() {
        total += parts[i].len();
        i += 1;
    }
    total
}

const fn join<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut out = [0; N];
    let (mut at, mut i) = (0, 0);
    while i < parts.len() {
        let bytes = parts[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            out[at] = bytes[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(at == N);
    out
}

/// A message as the assembly reads it: where it is and how long.
#[repr(C)]
pub struct Message {
    ptr: *const u8,
    len: usize,
}

// Safety: a `Message` only points at an immutable `static`.
unsafe impl Sync for Message {}

macro_rules! message {
    ($best:literal) => {{
        const PARTS: [&str; 13] = message_parts(BUILT, $best);
        static TEXT: [u8; length(&PARTS)] = join(&PARTS);
        Message { ptr: TEXT.as_ptr(), len: length(&PARTS) }
    }};
}

/// The line to print, by the CPU's best level (index 0 unused).
pub static MESSAGES: [Message; 5] = [message!(1), message!(1), message!(2), message!(3), message!(4)];

/// The message for a CPU whose best level is `best`, as text.
pub fn message(best: u32) -> &'static str {
    let message = &MESSAGES[best as usize];
    // Safety: every `Message` points at `len` bytes of a `static` array,
    // joined from `&str`s (UTF-8).
    unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(message.ptr, message.len)) }
}

/// Reads this CPU's [`Words`] into `out` (`cpuid`, and `xgetbv` when the OS
/// has enabled XSAVE). Baseline instructions only.
#[unsafe(naked)]
pub extern "sysv64" fn read_words(out: &mut Words) {
    core::arch::naked_asm!(
        "push rbx",
        "mov r8, rdi",
        "xor eax, eax",
        "xor ecx, ecx",
        "cpuid",
        "mov r9d, eax",
        "mov eax, 1",
        "xor ecx, ecx",
        "cpuid",
        "mov dword ptr [r8], ecx",
        "mov r10d, ecx",
        "mov dword ptr [r8 + 4], 0",
        "cmp r9d, 7",
        "jb 2f",
        "mov eax, 7",
        "xor ecx, ecx",
        "cpuid",
        "mov dword ptr [r8 + 4], ebx",
        "2:",
        "mov dword ptr [r8 + 8], 0",
        "mov eax, 0x80000000",
        "xor ecx, ecx",
        "cpuid",
        "cmp eax, 0x80000001",
        "jb 3f",
        "mov eax, 0x80000001",
        "xor ecx, ecx",
        "cpuid",
        "mov dword ptr [r8 + 8], ecx",
        "3:",
        "mov dword ptr [r8 + 12], 0",
        "bt r10d, 27",
        "jnc 4f",
        "xor ecx, ecx",
        "xgetbv",
        "mov dword ptr [r8 + 12], eax",
        "4:",
        "pop rbx",
        "ret",
    )
}

/// Whether `words` has every bit of `mask`. Baseline instructions only.
#[unsafe(naked)]
pub extern "sysv64" fn has_all(words: &Words, mask: &Words) -> bool {
    core::arch::naked_asm!(
        "xor eax, eax",
        "mov ecx, dword ptr [rsi]",
        "mov edx, dword ptr [rdi]",
        "and edx, ecx",
        "cmp edx, ecx",
        "jne 2f",
        "mov ecx, dword ptr [rsi + 4]",
        "mov edx, dword ptr [rdi + 4]",
        "and edx, ecx",
        "cmp edx, ecx",
        "jne 2f",
        "mov ecx, dword ptr [rsi + 8]",
        "mov edx, dword ptr [rdi + 8]",
        "and edx, ecx",
        "cmp edx, ecx",
        "jne 2f",
        "mov ecx, dword ptr [rsi + 12]",
        "mov edx, dword ptr [rdi + 12]",
        "and edx, ecx",
        "cmp edx, ecx",
        "jne 2f",
        "mov eax, 1",
        "2:",
        "ret",
    )
}

/// The best level, 1 to 4, that `words` can run. Baseline instructions only.
#[unsafe(naked)]
pub extern "sysv64" fn best_level(words: &Words) -> u32 {
    core::arch::naked_asm!(
        "push rbx",
        "mov rbx, rdi",
        "lea rsi, [rip + {v4}]",
        "call {has_all}",
        "test al, al",
        "mov eax, 4",
        "jnz 2f",
        "mov rdi, rbx",
        "lea rsi, [rip + {v3}]",
        "call {has_all}",
        "test al, al",
        "mov eax, 3",
        "jnz 2f",
        "mov rdi, rbx",
        "lea rsi, [rip + {v2}]",
        "call {has_all}",
        "test al, al",
        "mov eax, 2",
        "jnz 2f",
        "mov eax, 1",
        "2:",
        "pop rbx",
        "ret",
        v2 = sym LEVEL_V2,
        v3 = sym LEVEL_V3,
        v4 = sym LEVEL_V4,
        has_all = sym has_all,
    )
}

/// Returns if this CPU can run this build; otherwise writes the
/// [`MESSAGES`] line for its best level to stdout and exits with status 1
/// (raw `write` and `exit_group` system calls: no library code runs).
#[cfg(target_os = "linux")]
#[unsafe(naked)]
pub extern "C" fn check() {
    core::arch::naked_asm!(
        "push rbx",
        "sub rsp, 16",
        "mov rdi, rsp",
        "call {read_words}",
        "mov rdi, rsp",
        "lea rsi, [rip + {required}]",
        "call {has_all}",
        "test al, al",
        "jz 2f",
        "add rsp, 16",
        "pop rbx",
        "ret",
        "2:",
        "mov rdi, rsp",
        "call {best_level}",
        "mov eax, eax",
        "shl rax, 4",
        "lea rcx, [rip + {messages}]",
        "mov rsi, qword ptr [rcx + rax]",
        "mov rdx, qword ptr [rcx + rax + 8]",
        "mov edi, 1",
        "mov eax, 1",
        "syscall",
        "mov edi, 1",
        "mov eax, 231",
        "syscall",
        "ud2",
        read_words = sym read_words,
        has_all = sym has_all,
        best_level = sym best_level,
        required = sym REQUIRED,
        messages = sym MESSAGES,
    )
}

#[cfg(windows)]
unsafe extern "C" {
    /// msvcrt's `_write` and `_exit` (compiled for baseline x86-64).
    fn _write(fd: i32, buf: *const u8, count: u32) -> i32;
    fn _exit(code: i32) -> !;
}

/// Returns if this CPU can run this build; otherwise writes the
/// [`MESSAGES`] line for its best level to stdout and exits with status 1
/// (msvcrt's `_write` and `_exit`, which are not compiled with this build).
#[cfg(windows)]
#[unsafe(naked)]
pub extern "C" fn check() {
    core::arch::naked_asm!(
        // rbx, rsi and rdi belong to the caller in the Windows ABI; 32 bytes
        // of shadow space, then the words, keep the stack 16-byte aligned.
        "push rbx",
        "push rsi",
        "push rdi",
        "sub rsp, 48",
        "lea rdi, [rsp + 32]",
        "call {read_words}",
        "lea rdi, [rsp + 32]",
        "lea rsi, [rip + {required}]",
        "call {has_all}",
        "test al, al",
        "jz 2f",
        "add rsp, 48",
        "pop rdi",
        "pop rsi",
        "pop rbx",
        "ret",
        "2:",
        "lea rdi, [rsp + 32]",
        "call {best_level}",
        "mov eax, eax",
        "shl rax, 4",
        "lea rcx, [rip + {messages}]",
        "mov rdx, qword ptr [rcx + rax]",
        "mov r8, qword ptr [rcx + rax + 8]",
        "mov ecx, 1",
        "call {write}",
        "mov ecx, 1",
        "call {exit}",
        "ud2",
        read_words = sym read_words,
        has_all = sym has_all,
        best_level = sym best_level,
        required = sym REQUIRED,
        messages = sym MESSAGES,
        write = sym _write,
        exit = sym _exit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a CPU with `names` (and an OS that saves every register
    /// they use).
    fn cpu(names: &[&str]) -> Words {
        union(features(names).0, LAHF)
    }

    fn level(names: &[&[&'static str]]) -> Vec<&'static str> {
        names.concat()
    }

    #[test]
    fn this_cpu_runs_this_build() {
        let mut words = [0; 4];
        read_words(&mut words);
        assert!(has_all(&words, &REQUIRED), "{words:x?} lacks some of {REQUIRED:x?}");
        assert!(best_level(&words) as usize >= BUILT);
        check(); // returns
    }

    #[test]
    fn levels_are_cumulative_and_need_the_os_for_avx() {
        assert_eq!(LEVEL_V2, cpu(V2));
        assert_eq!(LEVEL_V3, cpu(&level(&[V2, V3])));
        assert_eq!(LEVEL_V4, cpu(&level(&[V2, V3, V4])));
        assert_eq!(LEVEL_V3[XCR0], AVX_STATE);
        assert_eq!(LEVEL_V4[XCR0], AVX512_STATE);
        assert_eq!(LEVEL_V2[EXT1_ECX], 1, "LAHF");
    }

    #[test]
    fn best_level_of_known_cpus() {
        // Core 2: SSSE3 but no SSE4.2 or POPCNT.
        assert_eq!(best_level(&cpu(&["sse3", "ssse3", "cmpxchg16b"])), 1);
        // Nehalem, as `qemu-x86_64 -cpu Nehalem` shows it.
        assert_eq!(best_level(&cpu(V2)), 2);
        // Sandy Bridge: AVX without AVX2.
        assert_eq!(best_level(&cpu(&level(&[V2, &["avx", "xsave"]]))), 2);
        // Haswell.
        let haswell = cpu(&level(&[V2, V3]));
        assert_eq!(best_level(&haswell), 3);
        // Haswell under an OS that does not save the YMM registers.
        assert_eq!(best_level(&[haswell[0], haswell[1], haswell[2], 0b11]), 2);
        // Haswell without BMI2 (some Pentium and Celeron parts).
        let mut no_bmi2 = haswell;
        no_bmi2[LEAF7_EBX] &= !(1 << 8);
        assert_eq!(best_level(&no_bmi2), 2);
        // Skylake-X, and under an OS that does not save the ZMM registers.
        let skylake_x = cpu(&level(&[V2, V3, V4]));
        assert_eq!(best_level(&skylake_x), 4);
        assert_eq!(best_level(&[skylake_x[0], skylake_x[1], skylake_x[2], AVX_STATE]), 3);
        // Every bit set: still level 4.
        assert_eq!(best_level(&[u32::MAX; 4]), 4);
        assert_eq!(best_level(&[0; 4]), 1);
    }

    #[test]
    fn has_all_needs_every_bit_of_every_word() {
        let mask = [1, 2, 4, 8];
        assert!(has_all(&[1, 2, 4, 8], &mask));
        assert!(has_all(&[u32::MAX; 4], &mask));
        for word in 0..4 {
            let mut words = mask;
            words[word] = 0;
            assert!(!has_all(&words, &mask), "word {word}");
        }
        assert!(has_all(&[0; 4], &[0; 4]));
    }

    #[test]
    fn this_build_needs_its_level() {
        let level = [&[0; 4], &[0; 4], &LEVEL_V2, &LEVEL_V3, &LEVEL_V4][BUILT];
        assert!(has_all(&REQUIRED, level), "{REQUIRED:x?} misses part of {level:x?}");
        assert_eq!(build_level(), LEVEL_NAMES[BUILT]);
    }

    #[test]
    fn messages_name_the_build_to_use() {
        let text = |built, best| -> String { message_parts(built, best).concat() };
        let (os, exe) = if cfg!(windows) { ("windows", ".exe") } else { ("linux", "") };
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            text(3, 2),
            format!(
                "Backrank {version}: this x86-64-v3 build needs AVX2, BMI2 and FMA, which this CPU \
                 lacks; use the x86-64-v2 build instead: backrank-{version}-{os}-x86-64-v2{exe}\n"
            )
        );
        assert_eq!(
            text(4, 3),
            format!(
                "Backrank {version}: this x86-64-v4 build needs AVX-512, which this CPU lacks; use \
                 the x86-64-v3 build instead: backrank-{version}-{os}-x86-64-v3{exe}\n"
            )
        );
        assert_eq!(
            text(2, 1),
            format!(
                "Backrank {version}: this x86-64-v2 build needs POPCNT and SSE4.2, which this CPU \
                 lacks, and no release build runs on it: build Backrank from source on this machine \
                 (make)\n"
            )
        );
        assert!(text(3, 3).contains("target-cpu=native"));
        // One line each, and the static ones are this build's.
        for best in 1..=4 {
            let line = message(best);
            assert_eq!(line.matches('\n').count(), 1, "{line:?}");
            assert!(line.ends_with('\n'));
            assert_eq!(line, text(BUILT, (best as usize).max(1)));
        }
    }
}
