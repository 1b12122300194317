//! The example's binary: the same library code on the official loader (`Api::load()`), then
//! the CPU driver or any real driver (`ZE_ENABLE_ALT_DRIVERS=.../libze_zekit_cpu.so`).

use std::process::ExitCode;

fn run() -> zekit::Result<()> {
    let api = zekit::Api::load()?;
    for name in zekit_example::device_names(&api)? {
        println!("device: {name}");
    }
    let (driver, device) = zekit_example::first_device(&api)?;
    let context = driver.create_context(&zekit::sys::ze_context_desc_t::default())?;
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
    let back = zekit_example::round_trip(&context, &device, &data)?;
    if back != data {
        return Err(zekit::Error::new(zekit::sys::ZE_RESULT_ERROR_UNKNOWN, "round_trip", "the data came back changed"));
    }
    println!("round trip: {} bytes ok", back.len());
    let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let y = vec![1.0f32; 1000];
    let out = zekit_example::saxpy(&context, &device, 2.0, &x, &y)?;
    if out.iter().zip(&x).any(|(o, x)| *o != 2.0 * x + 1.0) {
        return Err(zekit::Error::new(zekit::sys::ZE_RESULT_ERROR_UNKNOWN, "saxpy", "wrong results"));
    }
    println!("saxpy: {} elements ok", out.len());
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zekit-example: {e}");
            ExitCode::FAILURE
        }
    }
}
