//! `libze_zekit_cpu.so`: the zekit CPU driver (the `zekit-cpu` crate) as an ICD for the official
//! Level Zero loader: `ZE_ENABLE_ALT_DRIVERS=/path/to/libze_zekit_cpu.so ./program`.
//!
//! The `*GetProcAddrTable` exports come from `export_icd!`, over the driver's one instance.

zekit_icd::export_icd!(zekit_cpu::api::CpuDriver, zekit_cpu::api::instance());
