//! `zekit` against the mock in process (through `Api::from_driver`, which `Api::mock()` calls
//! under the cargo feature `mock`): generated methods, owned handles, memory, typed chains,
//! errors. The mock and its script are global: the tests take a lock.

use std::sync::Mutex;

use zekit::sys::*;
use zekit::{Api, Chain, Reach, REACH};

static LOCK: Mutex<()> = Mutex::new(());

fn mock() -> Api {
    zekit_mock::install();
    // SAFETY: the getters of the mock driver installed above.
    unsafe { Api::from_driver(&zekit_icd::ddi::getters()) }
}

fn device(api: &Api) -> (zekit::Driver, zekit::Device) {
    api.init(ze_init_flags_t(0)).expect("init");
    let driver = api.drivers().expect("drivers").remove(0);
    let device = driver.devices().expect("devices").remove(0);
    (driver, device)
}

#[test]
fn every_function_of_the_spec_is_reachable() {
    let spec: Vec<&str> = zekit_icd::FUNCTIONS.iter().map(|f| f.name).collect();
    let reached: Vec<&str> = REACH.iter().map(|(n, _)| *n).collect();
    let mut a = spec.clone();
    let mut b = reached.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "REACH lists every function of the spec once");
    let count = |k| REACH.iter().filter(|(_, r)| *r == k).count();
    assert!(count(Reach::Safe) > count(Reach::Unsafe), "most functions have a safe shape");
    for f in ["zeContextDestroy", "zeCommandListDestroy", "zeEventDestroy"] {
        assert!(REACH.contains(&(f, Reach::Drop)), "{f} is a Drop");
    }
    for f in ["zeDeviceGetProperties", "zeDeviceGet", "zeContextCreate", "zeCommandListAppendBarrier"] {
        assert!(REACH.contains(&(f, Reach::Safe)), "{f} is safe");
    }
}

#[test]
fn a_round_trip_through_the_mock() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = mock();
    assert_eq!(api.source(), &zekit::Source::Driver);
    let (driver, device) = device(&api);
    assert!(driver.api_version().expect("version").0 >= ze_api_version_t::_1_0.0);
    let props = device.properties().expect("properties");
    assert_eq!(props.r#type, ze_device_type_t::GPU, "the mock's default profile");
    assert!(!zekit::util::string_from_chars(&props.name).is_empty());
    assert!(!device.memory_properties().expect("memory").is_empty(), "the count protocol returns a Vec");
    assert!(device.sub_devices().expect("sub-devices").is_empty());

    // A typed chain: the driver fills the head (and what it knows of the extensions).
    let mut ddi = ze_driver_ddi_handles_ext_properties_t::default();
    let mut chain = Chain::<ze_driver_properties_t>::new();
    chain.push(&mut ddi);
    driver.properties_with(&mut chain).expect("properties with a chain");
    let head = chain.into_head();
    assert_eq!(head.stype, ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
    assert!(ddi.flags.0 & ZE_DRIVER_DDI_HANDLE_EXT_FLAG_DDI_HANDLE_EXT_SUPPORTED.0 != 0, "the mock filled the extension");

    let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
    let mut src = context.alloc_host(256, 64).expect("host memory");
    src.as_mut_slice().iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
    let dev = context.alloc_device(&device, 256, 64).expect("device memory");
    let dst = context.alloc_shared(Some(&device), 256, 64).expect("shared memory");
    let list = context.create_command_list_immediate(&device, &ze_command_queue_desc_t::default()).expect("immediate list");
    list.append_memory_copy(&dev, &src, 256, None, &[]).expect("copy up");
    list.append_barrier(None, &[]).expect("barrier");
    list.append_memory_copy(&dst, &dev, 256, None, &[]).expect("copy back");
    list.host_synchronize(u64::MAX).expect("synchronize");
    assert_eq!(dst.as_slice(), src.as_slice());

    // The context may go before what it made: they keep it alive.
    drop(context);
    drop(src);
    list.append_memory_fill(&dst, &[7], 16, None, &[]).expect("fill");
    list.host_synchronize(u64::MAX).expect("synchronize");
    assert_eq!(&dst.as_slice()[..17], &[7; 16].iter().copied().chain([16]).collect::<Vec<u8>>()[..]);
}

#[test]
fn misuse_returns_errors() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = mock();
    let (driver, device) = device(&api);
    let context = driver.create_context(&ze_context_desc_t::default()).expect("context");

    // A raw chain smuggled into a descriptor is refused before the call.
    let mut ext = ze_context_power_saving_hint_exp_desc_t::default();
    let desc = ze_context_desc_t { pNext: &mut ext as *mut _ as *const _, ..Default::default() };
    let e = driver.create_context(&desc).expect_err("a raw pNext");
    assert_eq!(e.code(), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(e.to_string().contains("pNext"), "{e}");

    // Sizes Rust can check.
    let a = context.alloc_host(64, 0).expect("host");
    let b = context.alloc_host(32, 0).expect("host");
    let list = context.create_command_list_immediate(&device, &ze_command_queue_desc_t::default()).expect("list");
    assert_eq!(list.append_memory_copy(&a, &b, 64, None, &[]).expect_err("too big").code(), ZE_RESULT_ERROR_INVALID_SIZE);
    assert_eq!(context.memory_alloc_properties(&a, 64).expect_err("outside").code(), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_eq!(context.memory_alloc_properties(&a, 63).expect("inside").r#type, ze_memory_type_t::HOST);

    // The driver's own errors come back with its description.
    let e = context.alloc_host(64, 3).expect_err("alignment");
    assert_eq!(e.code(), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    assert!(e.detail().is_some_and(|d| !d.is_empty()), "the driver's last-error text: {e}");
    assert!(e.to_string().starts_with("zeMemAllocHost: ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT"), "{e}");

    // Fault injection reaches calls made through the safe API.
    zekit_mock::script().on("zeMemAllocDevice").nth(1).returns(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    let e = context.alloc_device(&device, 64, 0).expect_err("injected");
    assert_eq!(e.code(), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    zekit_mock::script().reset();
}

#[test]
fn owned_handles_are_released_once() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = mock();
    let (driver, device) = device(&api);
    let script = zekit_mock::script();
    let destroys = script.call_count("zeContextDestroy");
    let lists = script.call_count("zeCommandListDestroy");
    let frees = script.call_count("zeMemFree");
    {
        let context = driver.create_context(&ze_context_desc_t::default()).expect("context");
        let list = context.create_command_list(&device, &ze_command_list_desc_t::default()).expect("list");
        let mem = context.alloc_shared(None, 64, 0).expect("shared");
        list.append_memory_fill(&mem, &[1, 2], 64, None, &[]).expect("fill");
        drop(mem); // the list keeps it
        drop(context); // the list keeps it
        assert_eq!(script.call_count("zeMemFree"), frees);
        assert_eq!(script.call_count("zeContextDestroy"), destroys);
        list.close().expect("close");
    }
    assert_eq!(script.call_count("zeCommandListDestroy"), lists + 1);
    assert_eq!(script.call_count("zeMemFree"), frees + 1);
    assert_eq!(script.call_count("zeContextDestroy"), destroys + 1);
}

#[test]
fn wrappers_are_send_and_shared_kinds_sync() {
    fn send<T: Send>() {}
    fn sync<T: Send + Sync + Clone>() {}
    send::<zekit::CommandList>();
    send::<zekit::Kernel>();
    send::<zekit::HostMem>();
    sync::<zekit::Device>();
    sync::<zekit::Context>();
    sync::<Api>();
}

#[test]
fn strings_with_a_nul_missing_functions_and_a_missing_loader_are_errors() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = mock();
    let (_driver, device) = device(&api);
    let e = device.validate_runtime_requirements("a\0b").expect_err("a NUL inside");
    assert_eq!(e.code(), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(e.to_string().contains("pRequirements"), "{e}");

    // Empty tables: every call is an error, none a crash.
    // SAFETY: empty tables hold no function to misbehave.
    let empty = unsafe { Api::from_fns(zekit::sys::fns::Fns::default(), zekit::Source::Driver) };
    let e = empty.init(ze_init_flags_t(0)).expect_err("no zeInit");
    assert_eq!((e.code(), e.function()), (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "zeInit"));

    let e = Api::load_from("/nonexistent/libze_loader.so.1").expect_err("no such loader");
    assert_eq!(e.code(), ZE_RESULT_ERROR_UNINITIALIZED);
    assert!(e.to_string().contains("/nonexistent/libze_loader.so.1"), "{e}");
}
