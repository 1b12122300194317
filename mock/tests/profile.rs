//! The device profile: defaults, YAML overrides, errors, filling the C structs.

use std::ffi::{c_void, CStr};

use zekit_mock::profile::{parse_size, parse_uuid, write_c_str, Profile};
use zekit_sys::*;

fn c_name(name: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = name.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&bytes)
        .expect("NUL-terminated")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn default_device_properties() {
    let p = Profile::default();
    let marker = 0x1234usize as *mut c_void;
    let mut props = ze_device_properties_t {
        pNext: marker,
        ..Default::default()
    };
    p.fill_device_properties(&mut props);
    assert_eq!(
        props.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
        "stype untouched"
    );
    assert_eq!(props.pNext, marker, "pNext untouched");
    assert_eq!(c_name(&props.name), "zekit mock device");
    assert_eq!(props.r#type, ZE_DEVICE_TYPE_GPU);
    assert_eq!(props.vendorId, 0x8086);
    assert_eq!(props.deviceId, 0x1234);
    assert_eq!(props.coreClockRate, 1500);
    assert_eq!(
        props.numSlices * props.numSubslicesPerSlice * props.numEUsPerSubslice,
        512
    );
    assert_eq!(p.eu_count(), 512);
    assert_eq!(props.maxMemAllocSize, 4 << 30);
    assert_eq!(props.timerResolution, 1);
    assert_eq!(props.timestampValidBits, 64);
    assert_eq!(props.kernelTimestampValidBits, 64);
    assert_eq!(props.uuid.id[..4], [0x86, 0x80, 0x34, 0x12]);
    assert!(props.flags.is_empty());

    // DEVICE_PROPERTIES_1_2 reports the timer resolution in cycles per second.
    let mut props12 = ze_device_properties_t {
        stype: ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2,
        ..Default::default()
    };
    p.fill_device_properties(&mut props12);
    assert_eq!(props12.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2);
    assert_eq!(props12.timerResolution, 1_000_000_000);
}

#[test]
fn default_compute_memory_cache_and_queue_groups() {
    let p = Profile::default();
    let mut c = ze_device_compute_properties_t::default();
    p.fill_compute_properties(&mut c);
    assert_eq!(c.stype, ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES);
    assert_eq!(c.maxTotalGroupSize, 1024);
    assert_eq!(c.numSubGroupSizes, 3);
    assert_eq!(c.subGroupSizes, [8, 16, 32, 0, 0, 0, 0, 0]);

    assert_eq!(p.memory_count(), 1);
    let mut mem = [ze_device_memory_properties_t::default(); 2];
    assert_eq!(p.fill_memory_properties(&mut mem), 1);
    assert_eq!(mem[0].totalSize, 8 << 30);
    assert_eq!(c_name(&mem[0].name), "HBM");
    assert_eq!(mem[0].stype, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES);
    assert_eq!(mem[1].totalSize, 0, "beyond the count: untouched");

    assert_eq!(p.cache_count(), 1);
    let mut caches = [ze_device_cache_properties_t::default()];
    assert_eq!(p.fill_cache_properties(&mut caches), 1);
    assert_eq!(caches[0].cacheSize, 16 << 20);

    assert_eq!(p.command_queue_group_count(), 2);
    let mut groups = [ze_command_queue_group_properties_t::default(); 2];
    assert_eq!(p.fill_command_queue_group_properties(&mut groups), 2);
    assert!(groups[0]
        .flags
        .contains(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE));
    assert_eq!(groups[0].numQueues, 4);
    assert_eq!(
        groups[1].flags,
        ze_command_queue_group_property_flags_t::from(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY)
    );
    assert_eq!(groups[1].numQueues, 2);
    // Fewer slots than entries: fill what fits.
    let mut one = [ze_command_queue_group_properties_t::default()];
    assert_eq!(p.fill_command_queue_group_properties(&mut one), 1);
    assert_eq!(one[0].numQueues, 4);
}

#[test]
fn yaml_overrides_keep_other_defaults() {
    let p = Profile::from_yaml(
        "device:\n  name: my gpu\n  vendorId: 0x10de\n  type: ZE_DEVICE_TYPE_CPU\n  flags: [INTEGRATED, ZE_DEVICE_PROPERTY_FLAG_ECC]\n  maxMemAllocSize: 1 GiB\n  uuid: 00112233445566778899aabbccddeeff\n\
         compute: { subGroupSizes: [16] }\n\
         memory:\n  - { totalSize: 2 GiB }\n  - { name: DDR, totalSize: 0x40000000 }\n\
         commandQueueGroups:\n  - { flags: COMPUTE | COPY, numQueues: 1 }\n",
    )
    .unwrap();
    let d = &p.device;
    assert_eq!(d.name, "my gpu");
    assert_eq!(d.vendor_id, 0x10de);
    assert_eq!(d.device_type, ZE_DEVICE_TYPE_CPU);
    assert_eq!(
        d.flags,
        ZE_DEVICE_PROPERTY_FLAG_INTEGRATED | ZE_DEVICE_PROPERTY_FLAG_ECC
    );
    assert_eq!(d.max_mem_alloc_size, 1 << 30);
    assert_eq!(d.uuid[0], 0x00);
    assert_eq!(d.uuid[15], 0xff);
    assert_eq!(d.device_id, 0x1234, "unset keys keep the default");
    assert_eq!(d.core_clock_rate, 1500);
    assert_eq!(p.compute.sub_group_sizes, [16]);
    assert_eq!(p.compute.max_total_group_size, 1024);
    assert_eq!(p.memory.len(), 2);
    assert_eq!(p.memory[0].total_size, 2 << 30);
    assert_eq!(
        p.memory[0].name, "HBM",
        "list entries default to the built-in first entry"
    );
    assert_eq!(p.memory[1].name, "DDR");
    assert_eq!(p.memory[1].total_size, 1 << 30);
    assert_eq!(p.command_queue_groups.len(), 1);
    assert_eq!(
        p.command_queue_groups[0].flags,
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY
    );
    assert_eq!(p.command_queue_groups[0].num_queues, 1);
    assert_eq!(p.caches, Profile::default().caches);

    let mut props = ze_device_properties_t::default();
    p.fill_device_properties(&mut props);
    assert_eq!(c_name(&props.name), "my gpu");
    assert_eq!(props.vendorId, 0x10de);
}

#[test]
fn empty_yaml_is_the_default_and_yaml_round_trips() {
    assert_eq!(Profile::from_yaml("").unwrap(), Profile::default());
    assert_eq!(
        Profile::from_yaml("# nothing\n---\n").unwrap(),
        Profile::default()
    );
    assert_eq!(Profile::from_yaml("{}").unwrap(), Profile::default());
    let text = Profile::default_yaml();
    assert!(text.contains("name: zekit mock device"), "{text}");
    assert!(text.contains("type: GPU"), "{text}");
    assert_eq!(Profile::from_yaml(&text).unwrap(), Profile::default());

    let mut p = Profile::default();
    p.device.flags = ZE_DEVICE_PROPERTY_FLAG_ECC | ze_device_property_flags_t(0x100);
    let back = Profile::from_yaml(&p.to_yaml().unwrap()).unwrap();
    assert_eq!(back, p, "unknown bits survive as numbers");
}

#[test]
fn yaml_errors_are_clear() {
    let cases: &[(&str, &[&str])] = &[
        ("devcie: {}", &["unknown field `devcie`", "`device`"]),
        (
            "device: { nmae: x }",
            &["device", "unknown field `nmae`", "line 1"],
        ),
        (
            "device: { type: GPX }",
            &["unknown device type `GPX`", "GPU, CPU"],
        ),
        (
            "device: { flags: [ECC, FOO] }",
            &["unknown flag `FOO`", "ONDEMANDPAGING"],
        ),
        (
            "caches: [ { cacheSize: 2 PiB } ]",
            &["caches[0]", "invalid size unit `PiB`"],
        ),
        ("device: { uuid: abc }", &["invalid uuid `abc`"]),
        ("device: { vendorId: -1 }", &["device", "vendorId"]),
        ("device: 3", &["device", "invalid type"]),
        (
            "compute: { subGroupSizes: [1,2,3,4,5,6,7,8,9] }",
            &["subGroupSizes has 9 entries"],
        ),
        ("device: [", &["profile:"]),
    ];
    for (yaml, needles) in cases {
        let err = Profile::from_yaml(yaml).expect_err(yaml);
        for n in *needles {
            assert!(err.contains(n), "{yaml:?}: {err:?} lacks {n:?}");
        }
    }
}

#[test]
fn long_names_are_truncated_and_nul_terminated() {
    let mut p = Profile::default();
    p.device.name = "x".repeat(300);
    let mut props = ze_device_properties_t {
        name: [0x41; 256],
        ..Default::default()
    };
    p.fill_device_properties(&mut props);
    assert_eq!(
        c_name(&props.name),
        "x".repeat(ZE_MAX_DEVICE_NAME as usize - 1)
    );
    assert_eq!(props.name[255], 0);

    // Truncation never splits a UTF-8 character; interior NUL ends the string.
    let mut buf = [0x41 as std::ffi::c_char; 4];
    write_c_str(&mut buf, "aé"); // 'é' is 2 bytes: fits exactly in 3
    assert_eq!(c_name(&buf), "aé");
    write_c_str(&mut buf, "abé");
    assert_eq!(c_name(&buf), "ab");
    assert_eq!(buf, [b'a' as _, b'b' as _, 0, 0]);
    write_c_str(&mut buf, "a\0b");
    assert_eq!(c_name(&buf), "a");
    write_c_str(&mut [], "nothing to write into");
}

#[test]
fn size_and_uuid_parsers() {
    assert_eq!(parse_size("4096"), Ok(4096));
    assert_eq!(parse_size("0x1000"), Ok(4096));
    assert_eq!(parse_size("4 KiB"), Ok(4096));
    assert_eq!(parse_size("16MiB"), Ok(16 << 20));
    assert_eq!(parse_size(" 8 GiB "), Ok(8 << 30));
    assert_eq!(parse_size("1T"), Ok(1 << 40));
    assert!(parse_size("lots").is_err());
    assert!(parse_size("99999999999 TiB")
        .unwrap_err()
        .contains("overflows"));
    assert_eq!(
        parse_uuid("86803412-0000-0000-7a65-6b69746d6f63").unwrap(),
        Profile::default().device.uuid
    );
    assert!(parse_uuid("1234").is_err());
    assert!(parse_uuid("zz803412000000007a656b69746d6f63").is_err());
}

#[test]
fn memory_access_and_module_sections() {
    let p = Profile::default();
    let mut ma = ze_device_memory_access_properties_t::default();
    p.fill_memory_access_properties(&mut ma);
    assert_eq!(ma.stype, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES);
    assert!(ma
        .hostAllocCapabilities
        .contains(ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC));
    assert!(ma.sharedSystemAllocCapabilities.is_empty());
    let mut m = ze_device_module_properties_t::default();
    p.fill_module_properties(&mut m);
    assert_eq!(m.spirvVersionSupported, 0x0001_0002);
    assert_eq!(m.maxArgumentsSize, 2048);
    assert_eq!(m.nativeKernelSupported.id, p.device.uuid);
    assert!(m.fp64flags.contains(ZE_DEVICE_FP_FLAG_FMA));
    assert!(Profile::default_yaml().contains("spirvVersionSupported: '1.2'"));

    let p = Profile::from_yaml(
        "memoryAccess: { hostAllocCapabilities: [RW] }\n\
         module: { spirvVersionSupported: \"1.10\", flags: [DP4A], fp16flags: 0, printfBufferSize: 1 MiB }\n",
    )
    .unwrap();
    assert_eq!(
        p.memory_access.host_alloc_capabilities,
        ZE_MEMORY_ACCESS_CAP_FLAG_RW.into()
    );
    assert_eq!(
        p.memory_access.device_alloc_capabilities,
        Profile::default().memory_access.device_alloc_capabilities,
        "omitted keys keep their defaults"
    );
    assert_eq!(p.module.spirv_version_supported, 0x0001_000a);
    assert_eq!(p.module.flags, ZE_DEVICE_MODULE_FLAG_DP4A.into());
    assert!(p.module.fp16_flags.is_empty());
    assert_eq!(p.module.printf_buffer_size, 1 << 20);
    assert_eq!(Profile::from_yaml(&p.to_yaml().unwrap()).unwrap(), p);

    for (yaml, needle) in [
        ("module: { spirvVersionSupported: 1.x }", "version"),
        ("module: { flags: [FP128] }", "unknown flag `FP128`"),
        (
            "memoryAccess: { hostAlloc: [RW] }",
            "unknown field `hostAlloc`",
        ),
    ] {
        let err = Profile::from_yaml(yaml).expect_err(yaml);
        assert!(err.contains(needle), "{yaml}: {err}");
    }
}
