//! zekit demo in Rust: the program of `examples/demo.c`, written with the safe `zekit` crate,
//! run through the official loader on zekit's CPU driver (`cargo xtask demo`). Exits non-zero
//! on any failure.

use std::process::ExitCode;

use zekit::sys::*;
use zekit::util::string_from_chars;
use zekit::Api;

fn run() -> zekit::Result<()> {
    let api = Api::load()?;
    api.init(ze_init_flags_t(0))?;
    let driver = api.drivers()?.into_iter().next().ok_or_else(|| zekit::Error::new(ZE_RESULT_ERROR_UNINITIALIZED, "zeDriverGet", "no driver"))?;
    let version = driver.api_version()?;
    println!("driver: API {}.{}", version.0 >> 16, version.0 & 0xffff);

    let dev = driver.devices()?.into_iter().next().ok_or_else(|| zekit::Error::new(ZE_RESULT_ERROR_UNINITIALIZED, "zeDeviceGet", "no device"))?;
    let props = dev.properties()?;
    println!(
        "device: {} (type {}, {} MHz, {} slices x {} subslices, SIMD {})",
        string_from_chars(&props.name),
        if props.r#type == ze_device_type_t::CPU { "CPU" } else { "other" },
        props.coreClockRate,
        props.numSlices,
        props.numSubslicesPerSlice,
        props.physicalEUSimdWidth
    );

    // The count protocol returns every entry; the C demo asks for the first.
    if let Some(mem) = dev.memory_properties()?.first() {
        println!("memory: {}, {:.1} GiB", string_from_chars(&mem.name), mem.totalSize as f64 / (1024.0 * 1024.0 * 1024.0));
    }
    for (i, cache) in dev.cache_properties()?.iter().enumerate() {
        println!("cache {i}: {} KiB", cache.cacheSize / 1024);
    }
    let (host_ts, dev_ts) = dev.global_timestamps()?;
    println!("timestamps: host {host_ts} ns, device {dev_ts} ns");

    let ctx = driver.create_context(&ze_context_desc_t::default())?;
    let mut shared = ctx.alloc_shared(Some(&dev), 1 << 20, 4096)?;
    shared.as_mut_slice().fill(0x5a);
    let ap = ctx.memory_alloc_properties(&shared, 1000)?;
    let (base, size) = ctx.memory_address_range(&shared, 1000)?;
    println!(
        "shared allocation: {size} bytes at {base:p} (type {}, id {}, page {})",
        if ap.r#type == ze_memory_type_t::SHARED { "SHARED" } else { "?" },
        ap.id,
        ap.pageSize
    );
    let bytes = shared.size();
    drop(shared); // zeMemFree, once: a second free cannot be written in safe Rust
    // Misuse the driver catches comes back as an error, as in C.
    let e = ctx.alloc_host(bytes, 3).expect_err("an alignment of 3 is refused");
    println!("allocating with alignment 3: {:#x} (an error, not a crash)", e.code().0);
    drop(ctx); // zeContextDestroy
    println!("demo: ok");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            ExitCode::FAILURE
        }
    }
}
