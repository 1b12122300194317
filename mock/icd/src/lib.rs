//! `libze_zekit_mock.so`: the mock driver of the `zekit-mock` crate, exported for the official
//! Level Zero loader (`ZE_ENABLE_ALT_DRIVERS=/path/to/libze_zekit_mock.so`).
//!
//! The `*GetProcAddrTable` exports come from `export_icd!`, which installs the mock on first
//! use, with its hooks (the script, fallback results) and `ZEKIT_MOCK_SCENARIO` applied. The
//! C control functions (`zekitMock*`, header `zekit/zekit_mock.h`) are defined in the
//! `zekit-mock` crate (`zekit_mock::generated`) and exported from here with it.

zekit_icd::export_icd!(zekit_mock::MockDriver, zekit_mock::for_icd());
