//! C programs (tests/c/*.c) through Debian's Level Zero loader on the CPU driver.
//!
//! Building this test builds the package's library with both crate types, so cargo produces
//! `target/<profile>/deps/libze_zekit_cpu.so` first; [`cpu_icd`] checks it is newer than every
//! source file of the library before any program runs.

// The driver's library (`zekit-cpu`), which the ICD exports.
extern crate zekit_cpu as zekit_driver_core;

use std::path::{Path, PathBuf};
use std::process::Output;

use zekit_testkit::{compile_c, expect_success, require_loader, run_with_icds};

mod common;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The CPU ICD, checked fresh (see [`common::cpu_icd`]).
fn cpu_icd() -> PathBuf {
    require_loader();
    common::cpu_icd()
}

fn build(program: &str, exe_name: &str) -> PathBuf {
    let src = manifest_dir().join("tests/c").join(format!("{program}.c"));
    compile_c(exe_name, &[&src], &["-ldl"])
}

fn run(exe: &Path, env: &[(&str, &str)]) -> Output {
    let so = cpu_icd();
    run_with_icds(exe, &[&so], env)
}

/// Runs `program`, asserts exit 0 and the final `ok` line; returns (stdout, stderr).
fn run_ok(program: &str, env: &[(&str, &str)]) -> (String, String) {
    let exe = build(program, &format!("cpu_{program}"));
    let out = run(&exe, env);
    let stdout = expect_success(program, &out);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    println!("--- {program} stdout\n{stdout}--- {program} stderr\n{stderr}");
    (stdout, stderr)
}

fn value<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(" = ")))
        .unwrap_or_else(|| panic!("no `{key} = ` line in:\n{stdout}"))
}

#[test]
fn discovery() {
    let (out, _) = run_ok("discovery", &[]);
    assert!(
        out.contains("extension ZE_extension_driver_ddi_handles 1.1\n"),
        "{out}"
    );
    assert!(
        out.contains("extension ZE_extension_memory_free_policies 1.0\n"),
        "{out}"
    );
    assert_eq!(value(&out, "devices"), "1");
    assert_eq!(
        value(&out, "device type"),
        zekit_sys::ze_device_type_t::CPU.0.to_string(),
        "ZE_DEVICE_TYPE_CPU"
    );
    let host = zekit_driver_core::host::host();
    assert_eq!(
        value(&out, "device name"),
        zekit_driver_core::properties::device_name(host)
            .chars()
            .take(255)
            .collect::<String>()
    );
    let uuid: String = zekit_driver_core::objects::driver_uuid(host)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(value(&out, "driver uuid"), uuid);
    assert!(out.ends_with("discovery ok\n"));
}

#[test]
fn device_queries() {
    let (out, _) = run_ok("device_queries", &[]);
    let host = zekit_driver_core::host::host();
    assert_eq!(
        value(&out, "maxMemAllocSize"),
        host.total_memory.to_string()
    );
    assert_eq!(
        value(&out, "numSubslicesPerSlice"),
        host.usable_cores.to_string()
    );
    assert_eq!(
        value(&out, "physicalEUSimdWidth"),
        host.simd_width_f32.to_string()
    );
    assert_eq!(value(&out, "numTotalEUs"), host.usable_cores.to_string());
    assert_eq!(
        value(&out, "caches"),
        zekit_driver_core::properties::cache_properties(host)
            .len()
            .to_string()
    );
    assert_eq!(value(&out, "root device"), "(nil)");
    assert_eq!(value(&out, "runtime requirements key"), "ZEKIT.L0.CPU");
    assert!(value(&out, "last error").contains("ZE_RESULT_ERROR_INVALID_ENUMERATION"));
    assert!(out.ends_with("device queries ok\n"));
}

#[test]
fn contexts() {
    let (out, _) = run_ok("contexts", &[]);
    assert!(out.ends_with("contexts ok\n"));
}

#[test]
fn allocations() {
    let (out, stderr) = run_ok("alloc", &[]);
    assert!(out.ends_with("allocations ok\n"));
    assert_eq!(
        out.matches("alloc 0x").count(),
        21,
        "7 alignments x host/device/shared"
    );
    // Expected failures are logged, the driver's with their reason.
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("zekit: zeMemAllocHost:") && l.contains("UNSUPPORTED_ALIGNMENT")),
        "{stderr}"
    );
    assert!(
        stderr.contains("alignment 2147483648 exceeds the largest supported alignment"),
        "{stderr}"
    );
    assert!(stderr.contains("free takes the base address"), "{stderr}");
    // One line per failure, written by the entry layer, the reason on the same line: the
    // driver's (alignment 2^31) or the parameter validation's (alignment 3).
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("alignment 2147483648")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("zekit: zeMemAllocDevice: ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: alignment 2147483648 "),
        "{stderr}"
    );
    let host_align: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: zeMemAllocHost:")).collect();
    assert_eq!(
        host_align,
        [
            "zekit: zeMemAllocHost: ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: invalid arguments: `0 != (alignment & (alignment - 1))`",
            "zekit: zeMemAllocHost: ZE_RESULT_ERROR_UNSUPPORTED_SIZE: invalid arguments: `0 == size`"
        ],
        "{stderr}"
    );
    assert!(!stderr.lines().any(|l| l.contains(": failed: ")), "no second line per failure:\n{stderr}");
}

/// Lines of stderr that are not the driver's own log lines (`zekit: ...`).
fn foreign_stderr(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("zekit: "))
        .collect()
}

#[test]
fn validation_layer_accepts_discovery_and_allocations() {
    let env = [
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
        ("ZE_ENABLE_THREADING_VALIDATION", "1"),
    ];
    for program in ["discovery", "alloc"] {
        let exe = build(program, &format!("cpu_{program}_validation"));
        let out = run(&exe, &env);
        let stdout = expect_success(program, &out);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        println!("--- {program} (validation layer)\n{stdout}--- stderr\n{stderr}");
        assert!(stdout.ends_with(" ok\n"), "{stdout}");
        assert!(
            foreign_stderr(&stderr).is_empty(),
            "the validation layer complained:\n{stderr}"
        );
        // The layer really was loaded into the program (it reads its own /proc/self/maps).
        assert!(
            stdout.contains("validation layer loaded = yes"),
            "validation layer not loaded:\n{stdout}"
        );
        if program == "alloc" {
            // The layer itself refused the alignments that are not powers of two (the driver
            // never saw them); the too-large power of two reached the driver.
            assert!(
                !stderr
                    .lines()
                    .any(|l| l.starts_with("zekit: zeMemAllocHost:") && l.contains("ALIGNMENT")),
                "{stderr}"
            );
            assert!(stderr.contains("alignment 2147483648 exceeds"), "{stderr}");
        }
    }
}

#[test]
fn bad_handles_are_errors() {
    let (out, _) = run_ok("handles", &[]);
    assert_eq!(
        value(&out, "second zeContextDestroy"),
        "0x78000004",
        "INVALID_ARGUMENT"
    );
    assert!(out.ends_with("handles ok\n"));
}

/// `ZEKIT_TRACE=<path>` appends one decoded line per call to the file; `ZEKIT_TRACE=1` writes
/// them to stderr; without it, nothing is traced.
#[test]
fn tracing_through_the_loader() {
    let dir = zekit_testkit::scratch("cpu_trace");
    let path = dir.join("trace.log");
    let _ = std::fs::remove_file(&path);
    let path_s = path.display().to_string();
    run_ok("alloc", &[("ZEKIT_TRACE", &path_s)]);
    let trace = std::fs::read_to_string(&path).expect("trace file written");
    let lines: Vec<&str> = trace.lines().collect();
    assert!(lines.iter().all(|l| l.starts_with("zekit-trace: ")), "{trace}");
    // Every line: function(args) -> RESULT [N ns].
    assert!(lines.iter().all(|l| l.contains(") -> ZE_RESULT_") && l.ends_with(" ns]")), "{trace}");
    assert!(lines.iter().any(|l| l.starts_with("zekit-trace: zeInit(flags=")), "{trace}");
    // Decoded arguments: a descriptor behind a pointer is shown by field, an enum by name.
    let alloc = lines.iter().find(|l| l.contains("zeMemAllocHost(")).expect("zeMemAllocHost traced");
    assert!(alloc.contains("stype: ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC"), "{alloc}");
    assert!(lines.iter().any(|l| l.contains("zeMemAllocHost(") && l.contains("ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT")), "{trace}");

    let (_, stderr) = run_ok("alloc", &[("ZEKIT_TRACE", "1")]);
    assert!(stderr.lines().any(|l| l.starts_with("zekit-trace: zeMemAllocDevice(")), "{stderr}");
    let (_, stderr) = run_ok("alloc", &[]);
    assert!(!stderr.contains("zekit-trace:"), "{stderr}");
}

/// `ZEKIT_DEVICE_TYPE=gpu`: the device reports itself as a GPU and `zeInit(GPU_ONLY)` finds the
/// driver; by default it is a CPU that `GPU_ONLY` does not find.
#[test]
fn device_type_switch() {
    let gpu_only = zekit_sys::ze_init_flags_t::GPU_ONLY.0.to_string();
    type Env<'a> = &'a [(&'a str, &'a str)];
    let cases: [(Env, &str, &str); 5] = [
        (&[("INIT_FLAGS", "0")], "1", "CPU"),
        (&[("INIT_FLAGS", &gpu_only)], "0", ""),
        (&[("INIT_FLAGS", &gpu_only), ("ZEKIT_DEVICE_TYPE", "gpu")], "1", "GPU"),
        (&[("INIT_FLAGS", "0"), ("ZEKIT_DEVICE_TYPE", "GPU")], "1", "GPU"),
        (&[("INIT_FLAGS", "0"), ("ZEKIT_DEVICE_TYPE", "cpu")], "1", "CPU"),
    ];
    for (env, drivers, kind) in cases {
        let (out, _) = run_ok("device_type", env);
        assert_eq!(value(&out, "drivers"), drivers, "{env:?}");
        if !kind.is_empty() {
            assert_eq!(value(&out, "device type"), kind, "{env:?}");
        }
    }
    // Anything else: a CPU, and one log line says why.
    let (out, err) = run_ok("device_type", &[("INIT_FLAGS", "0"), ("ZEKIT_DEVICE_TYPE", "fpga")]);
    assert_eq!(value(&out, "device type"), "CPU");
    assert_eq!(err.lines().filter(|l| l.contains("ZEKIT_DEVICE_TYPE")).count(), 1, "{err}");
}

/// Queues of both groups, regular lists reused, immediate lists, a chain over four queues,
/// fences, timestamps, host functions and counter-based events, through the loader; again with
/// the loader's validation layer, which has nothing to say.
#[test]
fn execution_through_the_loader() {
    let (out, stderr) = run_ok("execute", &[]);
    for line in ["chain over 4 queues ok", "reused list ok", "immediate lists ok", "counter-based events ok"] {
        assert!(out.contains(line), "{out}");
    }
    assert!(out.ends_with("execute ok\n"));
    assert!(!stderr.contains("zekit: "), "no failure expected:\n{stderr}");

    let env = [
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
    ];
    let exe = build("execute", "cpu_execute_validation");
    let run_out = run(&exe, &env);
    let stdout = expect_success("execute", &run_out);
    let stderr = String::from_utf8_lossy(&run_out.stderr).into_owned();
    assert!(stdout.contains("validation layer loaded = yes"), "{stdout}");
    assert!(stdout.ends_with("execute ok\n"), "{stdout}");
    assert!(foreign_stderr(&stderr).is_empty(), "the validation layer complained:\n{stderr}");
}

/// A SPIR-V vector add through the loader, end to end; again under the validation layer.
#[test]
fn vector_add_kernel_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/vector_add.spv");
    let spv = spv.to_str().unwrap();
    let (out, stderr) = run_ok("vector_add", &[("ZEKIT_TEST_SPV", spv)]);
    assert_eq!(value(&out, "spirv version"), "1.6");
    assert!(value(&out, "build log").contains("vector_add"), "{out}");
    assert_eq!(value(&out, "kernel arguments"), "3");
    assert!(out.contains("vector add of 100000 elements ok"), "{out}");
    assert!(out.ends_with("vector_add ok\n"), "{out}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), 1, "one line, for the bad module:\n{stderr}");
    assert!(lines[0].starts_with("zekit: zeModuleCreate: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE: invalid SPIR-V: "), "{stderr}");

    let env = [
        ("ZEKIT_TEST_SPV", spv),
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
    ];
    let exe = build("vector_add", "cpu_vector_add_validation");
    let run_out = run(&exe, &env);
    let stdout = expect_success("vector_add", &run_out);
    assert!(stdout.contains("validation layer loaded = yes"), "{stdout}");
    assert!(stdout.ends_with("vector_add ok\n"), "{stdout}");
}

/// `copy4` over 64 MiB and the async work-group copies through the loader: with the driver's
/// choice of streaming stores (the launch against this host's largest cache), and with them
/// forced off and on.
#[test]
fn copy_kernels_through_the_loader() {
    let dir = manifest_dir().join("../../spirv/kernels");
    let copy4 = dir.join("bench/copy4.spv");
    let asynchronous = dir.join("async_copy.spv");
    for stream in [None, Some("0"), Some("1")] {
        let mut env = vec![
            ("ZEKIT_TEST_COPY4", copy4.to_str().unwrap()),
            ("ZEKIT_TEST_ASYNC", asynchronous.to_str().unwrap()),
        ];
        env.extend(stream.map(|s| ("ZEKIT_STREAM_STORES", s)));
        let (out, _) = run_ok("copy_kernels", &env);
        assert!(out.contains("copy4 of 64 MiB ok"), "{out}");
        assert!(out.contains("async work-group copies ok"), "{out}");
    }
}

/// Kernel source attributes and scheduling hints through the loader (the other kernel
/// queries are newer than Debian's loader: `tests/kernel_api.rs`).
#[test]
fn kernel_queries_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/attrs.spv");
    let (out, stderr) = run_ok("kernel_api", &[("ZEKIT_TEST_SPV", spv.to_str().unwrap())]);
    assert_eq!(
        value(&out, "attributes attrs_all"),
        "reqd_work_group_size(8,1,1) work_group_size_hint(16,1,1) vec_type_hint(float4)"
    );
    assert_eq!(value(&out, "attributes attrs_hint"), "work_group_size_hint(4,2,1)");
    assert!(out.contains("attributes attrs_none = \n"), "{out}");
    assert!(out.ends_with("scheduling hints ok\nkernel_api ok\n"), "{out}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), 1, "one line, for the unknown hint flag:\n{stderr}");
    assert!(
        lines[0].starts_with("zekit: zeKernelSchedulingHintExp: ZE_RESULT_ERROR_INVALID_ENUMERATION"),
        "{stderr}"
    );
}

/// Images and samplers in a kernel through the loader: an image, a sampler and a bilinear
/// sampling kernel checked against a reference computed by the C program; a sampler handle
/// for the image argument is refused with one log line.
#[test]
fn image_sampling_kernel_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/images.spv");
    let src = manifest_dir().join("tests/c/image_sample.c");
    let exe = compile_c("cpu_image_sample", &[&src], &["-ldl", "-lm"]);
    let out = run(&exe, &[("ZEKIT_TEST_SPV", spv.to_str().unwrap())]);
    let stdout = expect_success("image_sample", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("6 bilinear samples ok"), "{stdout}");
    assert!(stdout.ends_with("image_sample ok\n"), "{stdout}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), 1, "one line, for the sampler given as an image:\n{stderr}");
    assert!(
        lines[0].starts_with("zekit: zeKernelSetArgumentValue: ZE_RESULT_ERROR_INVALID_ARGUMENT: argument 0 of kernel `sample_2d` takes an image handle"),
        "{stderr}"
    );
    // Again under the loader's validation layer (handle lifetimes tracked).
    let env = [
        ("ZEKIT_TEST_SPV", spv.to_str().unwrap()),
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
    ];
    let stdout = expect_success("image_sample", &run(&exe, &env));
    assert!(stdout.contains("validation layer loaded = yes"), "{stdout}");
    assert!(stdout.ends_with("image_sample ok\n"), "{stdout}");
}

/// Modules through the loader: dynamic linking (an unresolved import is one log line naming
/// it), a launch of multiple kernels indirect, and native binaries saved by one process and
/// loaded by another (the code relocated there; `math` bit for bit as built from SPIR-V).
#[test]
fn module_link_and_native_binaries_through_the_loader() {
    let kernels = manifest_dir().join("../../spirv/kernels");
    let kernels = kernels.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("zekit-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let (out, stderr) = run_ok(
        "module_link",
        &[("ZEKIT_TEST_KERNELS", kernels), ("ZEKIT_TEST_SAVE", d)],
    );
    assert!(value(&out, "link log").contains("linked scale_add, twice"), "{out}");
    assert!(out.contains("link_user over 256 elements ok"), "{out}");
    assert!(out.contains("native binaries saved"), "{out}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), 1, "one line, for the failed link:\n{stderr}");
    assert!(
        lines[0].starts_with("zekit: zeModuleDynamicLink: ZE_RESULT_ERROR_MODULE_LINK_FAILURE: ")
            && lines[0].contains("unresolved import `scale_add`"),
        "{stderr}"
    );
    let exe = build("module_link", "cpu_module_link");
    let loaded = run(&exe, &[("ZEKIT_TEST_KERNELS", kernels), ("ZEKIT_TEST_LOAD", d)]);
    let stdout = expect_success("module_link", &loaded);
    std::fs::remove_dir_all(&dir).ok();
    assert!(stdout.contains("link_user over 256 elements ok"), "{stdout}");
    assert!(stdout.contains("math from a native binary of another process ok"), "{stdout}");
    assert!(stdout.ends_with("module_link ok\n"), "{stdout}");
}

/// Bad use gets the spec's codes, one log line per failure (NOT_READY is not logged), and
/// neither a crash nor a hang.
#[test]
fn bad_use_gets_the_spec_codes_and_one_line() {
    let (out, stderr) = run_ok("bad_use", &[]);
    let failures: usize = value(&out, "expected failures").parse().unwrap();
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), failures, "one line per failure:\n{stderr}");
    assert!(!stderr.contains("NOT_READY"), "{stderr}");
    for expected in [
        "zekit: zeCommandQueueExecuteCommandLists: ZE_RESULT_ERROR_INVALID_ARGUMENT: the command list is not closed",
        "zekit: zeCommandListAppendMemoryCopy: ZE_RESULT_ERROR_INVALID_ARGUMENT: the command list is closed; reset it to append",
        "zekit: zeCommandQueueExecuteCommandLists: ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE: ",
        "zekit: zeCommandQueueDestroy: ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE: ",
        "zekit: zeEventHostSignal: ZE_RESULT_ERROR_INVALID_ARGUMENT: the event's pool was destroyed",
        "zekit: zeCommandListAppendMemoryCopyRegion: ZE_RESULT_ERROR_OVERLAPPING_REGIONS: ",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(expected)), "no `{expected}` in:\n{stderr}");
    }
}

/// The compatible validation level accepts what compute-runtime accepts (stype left at 0, an
/// int argument set from 8 bytes, fill patterns of 512 and 12 bytes, memory ordinal 1), noting
/// each once at debug level and logging no failure; `ZEKIT_VALIDATION=strict` refuses each with
/// the spec's code.
#[test]
fn leniency_levels_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/saxpy.spv");
    let spv = spv.to_str().unwrap();
    let (out, stderr) = run_ok("leniency", &[("ZEKIT_TEST_SPV", spv), ("ZEKIT_LOG", "debug")]);
    for line in ["stype 0 accepted", "memory ordinal 1 accepted", "page size of size 0 answered", "kernel argument of 8 bytes for 4 ok", "fill patterns of 512 and 12 bytes ok", "fill on a closed list refused"] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    let debug: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: debug: ")).collect();
    for what in ["zeMemAllocHost: accepted (host_desc->stype left at 0", "zeMemFreeExt: accepted (pMemFreeDesc->stype left at 0", "zeEventPoolCreate: accepted (desc->stype left at 0", "zeMemAllocDevice: accepted (device_desc->ordinal 1", "zeKernelSetArgumentValue: accepted (argument 3 of kernel `saxpy` set with 8 bytes", "zeCommandListAppendMemoryFill: accepted (a pattern_size that is not a power of two", "zeVirtualMemQueryPageSize: accepted (size 0 answered with the page size"] {
        assert_eq!(debug.iter().filter(|l| l.contains(what)).count(), 1, "one `{what}` line in:\n{stderr}");
    }
    // The failures the program provokes on purpose (a double for a float, a pattern of 0
    // bytes, a closed list) only.
    let failures: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ze")).collect();
    assert_eq!(failures.len(), 3, "{stderr}");
    assert!(failures[0].contains("argument 0 of kernel `saxpy` takes 4 bytes (the 4 more given are not the value widened)"), "{stderr}");

    let (out, stderr) = run_ok("leniency", &[("ZEKIT_TEST_SPV", spv), ("ZEKIT_VALIDATION", "strict"), ("ZT_STRICT", "1")]);
    for line in ["stype 0 refused", "memory ordinal 1 refused", "page size of size 0 refused", "fill on a closed list refused"] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    assert!(!stderr.contains("zekit: debug: "), "{stderr}");
    assert!(stderr.contains("zekit: zeMemAllocHost: ZE_RESULT_ERROR_INVALID_ARGUMENT: invalid arguments: host_desc->stype is not the structure type of ze_host_mem_alloc_desc_t"), "{stderr}");
}

/// A kernel writing an unmapped address and copies into read-only pages end with DEVICE_LOST
/// on their fence, queue, events and lists, one log line each; the process lives and a new
/// context works.
#[test]
fn faults_end_the_command_not_the_process() {
    let spv = manifest_dir().join("../../spirv/kernels/saxpy.spv");
    let (out, stderr) = run_ok("faults", &[("ZEKIT_TEST_SPV", spv.to_str().unwrap())]);
    for line in ["kernel fault: device lost", "small copy fault: device lost", "large copy fault: device lost", "a new context works"] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    let faults: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: command queue: a command faulted (SIGSEGV at 0x")).collect();
    assert_eq!(faults.len(), 4, "one line per faulting submission:\n{stderr}");
    // The kernel's write: y = 0x1000, 4096 floats.
    let addr = faults[0].split("SIGSEGV at 0x").nth(1).and_then(|r| r.split(')').next()).unwrap();
    let addr = u64::from_str_radix(addr, 16).unwrap();
    assert!((0x1000..0x1000 + 4 * 4096).contains(&addr), "{stderr}");
}

/// What the SYCL adapters ask beyond the common calls: residency, fp16, and Intel's functions
/// by name (version string, `zexCounterBasedEventCreate2`, imported host pointers).
#[test]
fn runtime_extensions_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/saxpy.spv");
    let exe = build("runtime_surface", "cpu_runtime_surface");
    let run_out = run(&exe, &[("ZEKIT_TEST_SPV", spv.to_str().unwrap())]);
    let out = String::from_utf8_lossy(&run_out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run_out.stderr).into_owned();
    assert!(run_out.status.success(), "{out}\n{stderr}");
    // Objects destroyed from an exit handler: the calls work, a failing one is quiet.
    assert!(out.ends_with("runtime_surface ok\nexit-time calls ok\n"), "{out}");
    assert!(!stderr.contains("panicked") && !stderr.contains("zeMemFree"), "{stderr}");
    for line in ["residency ok", "fp16 reported", "zexCounterBasedEventCreate2 ok", "imported pointers ok"] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    assert_eq!(value(&out, "driver version string"), env!("CARGO_PKG_VERSION"));
    // The four failures provoked on purpose, one line each.
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("zekit: ")).collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(lines[0].starts_with("zekit: zexCounterBasedEventCreate2: ZE_RESULT_ERROR_INVALID_ARGUMENT: "), "{stderr}");
}

/// Linked functions using their own module's variables: in a module program the library's
/// table and writable counter are the module's; zeModuleDynamicLink copies a constant table
/// and refuses a write to the library's own variable, naming why.
#[test]
fn module_program_and_linked_variables_through_the_loader() {
    let kernels = manifest_dir().join("../../spirv/kernels");
    let (out, _) = run_ok("module_program", &[("ZEKIT_TEST_KERNELS", kernels.to_str().unwrap())]);
    assert!(out.contains("module program: table ok, counter = 96\n"), "{out}");
    assert!(out.contains("dynamic link: constant table ok\n"), "{out}");
    assert!(out.contains("using its own module's writable program-scope variables"), "{out}");
    assert!(out.ends_with("module_program ok\n"), "{out}");
}

/// Fabric queries answer: one vertex (the device), no edges.
#[test]
fn fabric_through_the_loader() {
    let (out, _) = run_ok("fabric", &[]);
    assert!(out.ends_with("fabric ok\n"), "{out}");
}

/// A zeInit with unknown flag bits does not make a later valid zeInit fail (the loader keeps
/// the first answer); strict validation refuses the bits.
#[test]
fn init_flags_through_the_loader() {
    let (out, stderr) = run_ok("init_flags", &[("ZEKIT_LOG", "debug")]);
    assert!(out.contains("zeInit(0x80000000) = 0x0"), "{out}");
    assert!(stderr.contains("zekit: debug: zeInit: accepted (unknown flag bits 0x80000000 ignored)"), "{stderr}");
    // Every case ran in its own process and passed (the program fails otherwise).
    let cases = out.lines().filter(|l| l.starts_with("case ") && l.ends_with(" ok")).count();
    assert_eq!(cases, 13, "{out}");
    // A refusal of types this driver is not says so, once per refused call.
    assert!(stderr.contains("zeInit: ZE_RESULT_ERROR_UNINITIALIZED: zeInit flags 0x2 ask for no driver type this one has"), "{stderr}");
    let (out, _) = run_ok("init_flags", &[("ZEKIT_VALIDATION", "strict"), ("ZT_STRICT", "1")]);
    assert!(out.contains("zeInit(0x80000000) = 0x7800000c"), "{out}");
    assert!(out.contains("case strict unknown bits ok"), "{out}");
}

#[test]
fn virtual_memory_through_the_loader() {
    let (out, _) = run_ok("virtual_mem", &[]);
    assert!(out.contains("aliasing = yes\n"), "{out}");
    assert!(out.contains("write to a read-only page: signal 11\n"), "{out}");
}

#[test]
fn ipc_memory_and_events_between_processes_through_the_loader() {
    let (out, _) = run_ok("ipc", &[]);
    assert!(out.contains("parent saw the child's event = yes\n"), "{out}");
    assert!(out.contains("child ok\n"), "{out}");
    assert!(out.contains("parent sees the child's bytes = yes\n"), "{out}");
}

#[test]
fn external_semaphores_between_processes_through_the_loader() {
    let (out, _) = run_ok("semaphore", &[]);
    assert!(out.contains("parent saw the child's signals = yes\n"), "{out}");
    assert!(out.contains("child ok\n"), "{out}");
    assert!(out.contains("timeline = 7\n"), "{out}");
}

#[test]
fn external_memory_between_processes_through_the_loader() {
    let (out, err) = run_ok("external_memory", &[]);
    assert!(out.contains("parent sees the child's bytes = yes\n"), "{out}");
    assert!(out.contains("parent imported the child's memory = yes\n"), "{out}");
    assert!(out.contains("child ok\n"), "{out}");
    assert!(
        err.lines().any(|l| l.starts_with("zekit: zeMemAllocHost: ZE_RESULT_ERROR_INVALID_ARGUMENT: import fd")),
        "{err}"
    );
}

/// Mutable command lists through the loader: a saxpy launch changed on its closed list (an
/// argument, the group count, the signal event) and run again; misuse and its codes, each one
/// failure line; again under the loader's validation layer, which has nothing to say.
#[test]
fn mutable_command_lists_through_the_loader() {
    let spv = manifest_dir().join("../../spirv/kernels/saxpy.spv");
    let (out, stderr) = run_ok("mutable", &[("ZEKIT_TEST_SPV", spv.to_str().unwrap())]);
    assert_eq!(value(&out, "mutable command flags"), "0x7f");
    for line in ["first run ok", "updated run ok", "misuse ok"] {
        assert!(out.contains(line), "{out}");
    }
    assert!(out.ends_with("mutable ok\n"), "{out}");
    let failures = stderr.lines().filter(|l| l.starts_with("zekit: ")).count();
    assert_eq!(failures, 6, "one line per misuse:\n{stderr}");

    let env = [
        ("ZEKIT_TEST_SPV", spv.to_str().unwrap()),
        ("ZE_ENABLE_VALIDATION_LAYER", "1"),
        ("ZE_ENABLE_PARAMETER_VALIDATION", "1"),
        ("ZE_ENABLE_HANDLE_LIFETIME", "1"),
    ];
    let exe = build("mutable", "cpu_mutable_validation");
    let run_out = run(&exe, &env);
    let stdout = expect_success("mutable", &run_out);
    let stderr = String::from_utf8_lossy(&run_out.stderr).into_owned();
    assert!(stdout.contains("validation layer loaded = yes"), "{stdout}");
    assert!(stdout.ends_with("mutable ok\n"), "{stdout}");
    assert!(foreign_stderr(&stderr).is_empty(), "the validation layer complained:\n{stderr}");
}
