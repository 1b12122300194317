//! Parses the four Level Zero 1.18.31 seed pages (`shared/seeds/*.txt`) and
//! spot-checks what `xtask::seeds` makes of them.

use std::collections::BTreeMap;
use std::path::Path;

use xtask::seeds::{
    parse_dir, parse_page, SeedEnum, SeedFunction, SeedItemKind, SeedSet, SeedStruct,
};

const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seeds");

fn seeds() -> SeedSet {
    parse_dir(Path::new(SEEDS)).expect("seed pages parse")
}

fn func<'a>(set: &'a SeedSet, name: &str) -> &'a SeedFunction {
    set.functions
        .get(name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn strukt<'a>(set: &'a SeedSet, name: &str) -> &'a SeedStruct {
    set.structs
        .get(name)
        .unwrap_or_else(|| panic!("no struct {name}"))
}

fn enm<'a>(set: &'a SeedSet, name: &str) -> &'a SeedEnum {
    set.enums
        .get(name)
        .unwrap_or_else(|| panic!("no enum {name}"))
}

/// (name, ty, annotations) of every parameter.
fn params(f: &SeedFunction) -> Vec<(&str, &str, &str)> {
    f.params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_str(), p.annotations.as_str()))
        .collect()
}

#[test]
fn pages_and_kinds() {
    let set = seeds();
    assert_eq!(
        set.pages,
        [
            "Mem - Extensions",
            "Device",
            "Command List - Extensions",
            "Module"
        ]
    );
    assert_eq!(set.spec_version.as_deref(), Some("1.18.31"));
    assert_eq!(set.functions.len(), 42);
    assert_eq!(set.structs.len(), 25);
    assert!(set.structs.values().all(|s| !s.is_union));
    assert_eq!(set.enums.len(), 19);
    // The four pages hold no macros, typedefs or handles.
    assert!(set.macros.is_empty());
    assert!(set.typedefs.is_empty());
    assert!(set.handles.is_empty());

    let per_page = |page: &str| {
        set.functions
            .keys()
            .filter(|f| set.page_of.get(*f).map(String::as_str) == Some(page))
            .count()
    };
    assert_eq!(per_page("Device"), 23);
    assert_eq!(per_page("Module"), 8);
    assert_eq!(per_page("Command List - Extensions"), 10);
    assert_eq!(per_page("Mem - Extensions"), 1);

    assert_eq!(set.page_of["zeMemFreeExt"], "Mem - Extensions");
    assert_eq!(set.page_of["ze_device_property_flag_t"], "Device");
    assert_eq!(set.page_of["ze_device_property_flags_t"], "Device");
    assert_eq!(set.page_of["ze_module_desc_t"], "Module");
    assert_eq!(
        set.page_of["zeCommandListAppendGraphExt"],
        "Command List - Extensions"
    );
    // Every function, struct and enum has a page.
    for name in set
        .functions
        .keys()
        .chain(set.structs.keys())
        .chain(set.enums.keys())
    {
        assert!(set.page_of.contains_key(name), "{name} has no page");
    }
}

#[test]
fn item_count() {
    let set = seeds();
    let items = set.item_names();
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &items {
        *by_kind.entry(item.kind.as_str()).or_default() += 1;
    }
    let boilerplate = items.iter().filter(|i| i.boilerplate).count();
    println!(
        "seed items: {} total = {by_kind:?}; {boilerplate} boilerplate \
         (stype/pNext members + *_FORCE_UINT32 enumerators)",
        items.len()
    );
    let expected: BTreeMap<&str, usize> = [
        ("enum", 19),
        ("enumerator", 97),
        ("function", 42),
        ("member", 133),
        ("struct", 25),
    ]
    .into_iter()
    .collect();
    assert_eq!(by_kind, expected);
    assert_eq!(items.len(), 316);

    let force = items
        .iter()
        .filter(|i| i.kind == SeedItemKind::Enumerator && i.boilerplate)
        .count();
    assert_eq!(force, 19);
    let base = items
        .iter()
        .filter(|i| i.kind == SeedItemKind::Member && i.boilerplate)
        .count();
    assert_eq!(base, 42);
    // Functions + members + enumerators only.
    let fme = items
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                SeedItemKind::Function | SeedItemKind::Member | SeedItemKind::Enumerator
            )
        })
        .count();
    assert_eq!(fme, 272);

    // Names are unique and every item has a page.
    let mut names: Vec<&str> = items.iter().map(|i| i.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), items.len());
    assert!(items.iter().all(|i| !i.page.is_empty()));
    assert!(items
        .iter()
        .any(|i| i.name == "ze_device_properties_t.name" && i.page == "Device"));
}

#[test]
fn ze_device_get_compiler_info() {
    let set = seeds();
    let f = func(&set, "zeDeviceGetCompilerInfo");
    assert_eq!(f.since.as_deref(), Some("1.18"));
    assert_eq!(f.ret, "ze_result_t");
    assert_eq!(
        f.doc,
        "Retrieves compiler-specific information for the device, selected by an enumerated type."
    );
    assert_eq!(
        params(f),
        [
            ("hDevice", "ze_device_handle_t", "[in]"),
            ("paramName", "ze_device_compiler_info_t", "[in]"),
            ("pNext", "const void*", "[in][optional]"),
            ("pSize", "size_t*", "[in,out]"),
            ("pData", "void*", "[in,out][optional][range(0, *pSize)]"),
        ]
    );
    assert_eq!(f.params[0].doc, "handle of the device");
    assert_eq!(f.params[1].doc, "compiler-info to return");
    assert_eq!(
        f.params[2].doc,
        "additional extensions passed to the function"
    );
    assert!(f.params[3]
        .doc
        .starts_with("pointer to the size in bytes of the result. If size is zero,"));
    assert!(f.params[3].doc.ends_with("and shall not write to pData."));
    assert_eq!(
        f.params[4].doc,
        "pointer to the result buffer. If pData is nullptr, then only the required size is returned in pSize."
    );
    assert_eq!(
        f.details,
        [
            "This query is scoped to compiler-specific data.",
            "The paramName parameter selects data to be queried. Data layout is documented along with respective paramName enum entry.",
            "The application may call this function from simultaneous threads.",
            "The implementation of this function should be lock-free.",
        ]
    );
    assert!(f.analogues.is_empty());
    assert!(
        f.returns.is_empty(),
        "the text export lost the return codes"
    );
}

#[test]
fn ze_module_get_device_handle() {
    let set = seeds();
    let f = func(&set, "zeModuleGetDeviceHandle");
    assert_eq!(f.since.as_deref(), Some("1.18"));
    assert_eq!(
        f.doc,
        "Retrieve the handle of the device on which the module was created."
    );
    assert_eq!(
        params(f),
        [
            ("hModule", "ze_module_handle_t", "[in]"),
            ("phDevice", "ze_device_handle_t*", "[out]"),
        ]
    );
    assert_eq!(f.params[0].doc, "handle of the module");
    assert_eq!(
        f.params[1].doc,
        "handle of the device the module was created for"
    );
    assert_eq!(
        f.details,
        ["The application may call this function from simultaneous threads."]
    );
    assert_eq!(set.page_of["zeModuleGetDeviceHandle"], "Module");
}

#[test]
fn pointer_types() {
    let set = seeds();
    let ty = |f: &str, p: &str| {
        func(&set, f)
            .params
            .iter()
            .find(|x| x.name == p)
            .unwrap_or_else(|| panic!("{f} has no {p}"))
            .ty
            .clone()
    };
    assert_eq!(ty("zeModuleGetKernelNames", "pNames"), "const char**");
    assert_eq!(ty("zeModuleGetGlobalPointer", "pptr"), "void**");
    assert_eq!(ty("zeModuleGetGlobalPointer", "pGlobalName"), "const char*");
    assert_eq!(
        ty("zeDeviceGetRuntimeRequirementsKey", "pKey"),
        "const char**"
    );
    assert_eq!(ty("zeModuleCreate", "desc"), "const ze_module_desc_t*");
    assert_eq!(
        ty("zeModuleGetNativeBinary", "pModuleNativeBinary"),
        "uint8_t*"
    );
    assert_eq!(ty("zeDeviceCanAccessPeer", "value"), "ze_bool_t*");
    assert_eq!(ty("zeMemFreeExt", "ptr"), "void*");
    assert_eq!(
        ty("zeCommandListAppendImageCopyToMemoryExt", "pSrcRegion"),
        "const ze_image_region_t*"
    );
    assert_eq!(
        ty("zeCommandListAppendImageCopyToMemoryExt", "destRowPitch"),
        "uint32_t"
    );

    let m = &strukt(&set, "ze_module_constants_t").members;
    assert_eq!(m[1].ty, "const uint32_t*");
    assert_eq!(m[2].name, "pConstantValues");
    assert_eq!(m[2].ty, "const void**");
    assert_eq!(m[2].annotations, "[in][range(0, numConstants)]");
}

#[test]
fn single_parameter_functions() {
    // Sphinx prints a lone parameter without a bullet.
    let set = seeds();
    for (f, p, ann) in [
        ("zeDeviceGetStatus", "hDevice", "[in]"),
        ("zeDeviceSynchronize", "hDevice", "[in]"),
        ("zeModuleDestroy", "hModule", "[in][release]"),
        (
            "zeCommandListIsGraphCaptureEnabledExt",
            "hCommandList",
            "[in]",
        ),
    ] {
        let f = func(&set, f);
        assert_eq!(f.params.len(), 1, "{}", f.name);
        assert_eq!(f.params[0].name, p);
        assert_eq!(f.params[0].annotations, ann);
        assert!(!f.params[0].doc.is_empty());
    }
    // A brief that starts with "Returns" is still the brief.
    assert_eq!(
        func(&set, "zeDeviceGetStatus").doc,
        "Returns current status of the device."
    );
}

#[test]
fn irregular_annotations_are_kept_as_printed() {
    let set = seeds();
    let ann = |f: &str, p: &str| {
        func(&set, f)
            .params
            .iter()
            .find(|x| x.name == p)
            .map(|x| x.annotations.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        ann("zeDeviceValidateRuntimeRequirements", "pOut"),
        "[in][out]"
    );
    assert_eq!(
        ann(
            "zeCommandListAppendWaitExternalSemaphoreExt",
            "phSemaphores"
        ),
        "[in][range(0,numSemaphores)]"
    );
    assert_eq!(
        ann(
            "zeCommandListAppendSignalExternalSemaphoreExt",
            "phSemaphores"
        ),
        "[in][range(0, numSemaphores)]"
    );
    assert_eq!(ann("zeDeviceGetRootDevice", "phRootDevice"), "[in,out]");
    assert_eq!(ann("zeMemFreeExt", "ptr"), "[in][release]");
    assert_eq!(
        ann("zeCommandListAppendGraphExt", "phWaitEvents"),
        "[in][optional][range(0, numWaitEvents)]"
    );
}

#[test]
fn details_remarks_and_nesting() {
    let set = seeds();
    let f = func(&set, "zeDeviceGetSubDevices");
    assert_eq!(f.analogues, ["clCreateSubDevices"]);
    assert_eq!(f.details.len(), 5);
    assert_eq!(
        func(&set, "zeDeviceGetCommandQueueGroupProperties").analogues,
        ["vkGetPhysicalDeviceQueueFamilyProperties"]
    );

    let f = func(&set, "zeDeviceCanAccessPeer");
    assert_eq!(f.details.len(), 4);
    let nested: Vec<&str> = f.details[1].lines().collect();
    assert_eq!(nested.len(), 6);
    assert_eq!(
        nested[0],
        "The following are conditions for CanAccessPeer query."
    );
    assert_eq!(
        nested[1],
        "  • If both device and peer device are the same then return true."
    );
}

#[test]
fn ze_device_properties_t_members() {
    let set = seeds();
    let s = strukt(&set, "ze_device_properties_t");
    assert_eq!(s.since.as_deref(), Some("1.0"));
    assert_eq!(
        s.doc,
        "Device properties queried using zeDeviceGetProperties."
    );
    assert!(s.details.is_empty());
    let got: Vec<(&str, &str)> = s
        .members
        .iter()
        .map(|m| (m.ty.as_str(), m.name.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("ze_structure_type_t", "stype"),
            ("void*", "pNext"),
            ("ze_device_type_t", "type"),
            ("uint32_t", "vendorId"),
            ("uint32_t", "deviceId"),
            ("ze_device_property_flags_t", "flags"),
            ("uint32_t", "subdeviceId"),
            ("uint32_t", "coreClockRate"),
            ("uint64_t", "maxMemAllocSize"),
            ("uint32_t", "maxHardwareContexts"),
            ("uint32_t", "maxCommandQueuePriority"),
            ("uint32_t", "numThreadsPerEU"),
            ("uint32_t", "physicalEUSimdWidth"),
            ("uint32_t", "numEUsPerSubslice"),
            ("uint32_t", "numSubslicesPerSlice"),
            ("uint32_t", "numSlices"),
            ("uint64_t", "timerResolution"),
            ("uint32_t", "timestampValidBits"),
            ("uint32_t", "kernelTimestampValidBits"),
            ("ze_device_uuid_t", "uuid"),
            ("char", "name"),
        ]
    );
    let m = |n: &str| s.members.iter().find(|m| m.name == n).unwrap();
    assert_eq!(m("stype").annotations, "[in]");
    assert_eq!(m("stype").doc, "type of this structure");
    assert_eq!(m("pNext").annotations, "[in,out][optional]");
    assert_eq!(m("type").annotations, "[out]");
    assert_eq!(m("type").doc, "generic device type");
    assert_eq!(m("name").array.as_deref(), Some("ZE_MAX_DEVICE_NAME"));
    assert_eq!(m("name").doc, "Device name");
    assert!(s
        .members
        .iter()
        .filter(|x| x.name != "name")
        .all(|x| x.array.is_none()));
    // Annotation alone, then a deprecation note.
    let t = m("timerResolution");
    assert_eq!(t.annotations, "[out]");
    assert!(t
        .doc
        .starts_with("Deprecated:\nwhen using ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES since 1.17"));

    let c = strukt(&set, "ze_device_compute_properties_t");
    let last = c.members.last().unwrap();
    assert_eq!(
        (last.ty.as_str(), last.name.as_str(), last.array.as_deref()),
        ("uint32_t", "subGroupSizes", Some("ZE_SUBGROUPSIZE_COUNT"))
    );
    // The sidebar line "In this class" at the end of the page is not a doc.
    let cnv = strukt(&set, "ze_compiler_name_version_t");
    assert_eq!(cnv.members[1].doc, "null-terminated name");
    assert_eq!(
        cnv.members[1].array.as_deref(),
        Some("ZE_MAX_EXTENSION_NAME")
    );
}

#[test]
fn ze_ipc_phys_mem_handle_range_ext_desc_t() {
    let set = seeds();
    let s = strukt(&set, "ze_ipc_phys_mem_handle_range_ext_desc_t");
    assert_eq!(set.page_of[&s.name], "Mem - Extensions");
    assert_eq!(s.since.as_deref(), Some("1.18"));
    assert_eq!(
        s.doc,
        "Descriptor for capturing a VA range into an IPC memory handle."
    );
    assert_eq!(s.details.len(), 18);
    assert!(s.details[0].starts_with("Pass this structure via the pNext parameter"));
    assert!(s.details[17].starts_with("Returns ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"));
    let got: Vec<(&str, &str, &str)> = s
        .members
        .iter()
        .map(|m| (m.ty.as_str(), m.name.as_str(), m.annotations.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("ze_structure_type_t", "stype", "[in]"),
            ("const void*", "pNext", "[in][optional]"),
            ("size_t", "size", "[in]"),
        ]
    );
    // A doc that itself contains "[ptr, ptr+size)" keeps it in the text.
    assert!(s.members[2]
        .doc
        .starts_with("size in bytes of the VA range"));
    assert!(s.members[2]
        .doc
        .contains("The range [ptr, ptr+size) must be fully mapped"));
}

#[test]
fn struct_docs_as_printed() {
    let set = seeds();
    // The brief of this struct was printed as a Python list.
    assert!(strukt(&set, "ze_ipc_mem_handle_type_ext_desc_t")
        .doc
        .starts_with("[‘IPC Memory Handle Type Extension Descriptor’, ‘Used in"));
    let d = &strukt(&set, "ze_module_desc_t").members[5];
    assert_eq!(d.name, "pBuildFlags");
    assert_eq!(d.annotations, "[in][optional]");
    let lines: Vec<&str> = d.doc.lines().collect();
    assert_eq!(lines.len(), 16);
    assert_eq!(lines[1], "  • ”-ze-opt-disable”");
    assert_eq!(lines[2], "    • Disable optimizations");
    assert_eq!(
        strukt(&set, "ze_external_memmap_sysmem_ext_desc_t")
            .details
            .len(),
        9
    );
}

#[test]
fn enums_and_etors() {
    let set = seeds();
    let e = enm(&set, "ze_device_type_t");
    assert_eq!(e.typedef_name, None);
    assert_eq!(e.since.as_deref(), Some("1.0"));
    assert_eq!(e.doc, "Supported device types.");
    let names: Vec<&str> = e.etors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ZE_DEVICE_TYPE_GPU",
            "ZE_DEVICE_TYPE_CPU",
            "ZE_DEVICE_TYPE_FPGA",
            "ZE_DEVICE_TYPE_MCA",
            "ZE_DEVICE_TYPE_VPU",
            "ZE_DEVICE_TYPE_FORCE_UINT32",
        ]
    );
    assert_eq!(e.etors[0].doc, "Graphics Processing Unit.");
    assert_eq!(e.etors[3].doc, "Memory Copy Accelerator.");
    assert_eq!(
        e.etors.iter().map(|t| t.force_uint32).collect::<Vec<_>>(),
        [false, false, false, false, false, true]
    );
    assert!(e.etors.iter().all(|t| t.value.is_none()));

    let f = enm(&set, "ze_device_property_flag_t");
    assert_eq!(
        f.typedef_name.as_deref(),
        Some("ze_device_property_flags_t")
    );
    assert_eq!(f.doc, "");
    assert_eq!(f.etors.len(), 5);
    assert_eq!(f.etors[1].name, "ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE");
    assert_eq!(
        f.etors[1].doc,
        "Device handle used for query represents a sub-device."
    );
    assert!(f.etors[4].force_uint32);
    assert_eq!(
        f.etors[4].doc,
        "Value marking end of ZE_DEVICE_PROPERTY_FLAG_* ENUMs."
    );

    // Every enum ends with exactly one FORCE_UINT32 terminator.
    for e in set.enums.values() {
        let n = e.etors.iter().filter(|t| t.force_uint32).count();
        assert_eq!(n, 1, "{}", e.name);
        assert!(e.etors.last().unwrap().force_uint32, "{}", e.name);
    }
    let flags = set
        .enums
        .values()
        .filter(|e| e.typedef_name.is_some())
        .count();
    assert_eq!(flags, 15);

    // Two-paragraph descriptions printed in the wrong order are kept as is.
    let d = enm(&set, "ze_device_input_data_type_flag_t");
    assert_eq!(d.etors.len(), 16);
    let t = d
        .etors
        .iter()
        .find(|t| t.name == "ZE_DEVICE_INPUT_DATA_TYPE_FLAG_DEVICE_INPUT_DATA_SCALING_UINT8")
        .unwrap();
    assert_eq!(
        t.doc,
        "product support.\nSupports uint8 data type support for scaling, exclusive to BDPAS dot"
    );
}

#[test]
fn versions() {
    let set = seeds();
    let since = |n: &str| -> Option<&str> {
        set.functions
            .get(n)
            .and_then(|f| f.since.as_deref())
            .or_else(|| set.structs.get(n).and_then(|s| s.since.as_deref()))
            .or_else(|| set.enums.get(n).and_then(|e| e.since.as_deref()))
    };
    assert_eq!(since("zeDeviceGet"), Some("1.0"));
    assert_eq!(since("zeDeviceGetGlobalTimestamps"), Some("1.1"));
    assert_eq!(since("zeMemFreeExt"), Some("1.3"));
    assert_eq!(since("zeDeviceGetRootDevice"), Some("1.7"));
    assert_eq!(
        since("zeCommandListAppendSignalExternalSemaphoreExt"),
        Some("1.12")
    );
    assert_eq!(since("zeDeviceSynchronize"), Some("1.14"));
    assert_eq!(since("ze_external_memmap_sysmem_ext_desc_t"), Some("1.14"));
    assert_eq!(since("ze_device_event_properties_flag_t"), Some("1.15"));
    assert_eq!(
        since("ze_validate_runtime_requirements_result_t"),
        Some("1.16")
    );
    assert_eq!(
        since("ze_relaxed_allocation_limits_ext_flag_t"),
        Some("1.17")
    );
    assert_eq!(since("ze_compiler_name_version_t"), Some("1.18"));
    // Every item of these pages carries a version.
    assert!(set.functions.values().all(|f| f.since.is_some()));
    assert!(set.structs.values().all(|s| s.since.is_some()));
    assert!(set.enums.values().all(|e| e.since.is_some()));
}

const MINI: &str = "Mini\n\nMini#\n\noneAPI Level Zero Specification - Version 1.18.31\n\n\
Mini Functions#\n\nzeFoo#\n\nAdded in version 1.2\n\n\
ZE_APIEXPORT ze_result_t ZE_APICALL zeFoo(ze_device_handle_t hDevice, uint32_t *pCount)#\n\n\
Does foo.\n\nParameters:\n\n  • hDevice – [in] the device\n\n  • pCount – [in,out] count\n\nReturns:\n";

#[test]
fn errors_name_a_line() {
    let mut set = SeedSet::default();
    parse_page(MINI, &mut set).unwrap();
    assert_eq!(func(&set, "zeFoo").since.as_deref(), Some("1.2"));

    let cases = [
        // Documented parameter that the signature lacks.
        (MINI.replace("• pCount –", "• pCnt –"), "line 21:"),
        // Parameter missing from the list.
        (
            MINI.replace("  • pCount – [in,out] count\n", ""),
            "line 13:",
        ),
        // Heading without a declaration.
        (
            MINI.replace("ZE_APIEXPORT ze_result_t ZE_APICALL zeFoo", "Foo bar"),
            "line 13:",
        ),
        (
            MINI.replace(
                "Added in version 1.2\n\nZE_APIEXPORT",
                "Mini Enums#\n\nZE_APIEXPORT",
            ),
            "line 9:",
        ),
        // Heading and declaration disagree.
        (
            MINI.replace("ZE_APICALL zeFoo(", "ZE_APICALL zeBar("),
            "line 9:",
        ),
        (MINI.replace("version 1.2", "version one"), "line 11:"),
        (MINI.replace("uint32_t *pCount)", "uint32_t *)"), "line 13:"),
    ];
    for (text, line) in cases {
        let e = parse_page(&text, &mut SeedSet::default()).expect_err(&text);
        assert!(e.starts_with(line), "{line} / {e}");
    }
    // A page of another spec version; a failed page leaves the set unchanged.
    let before = set.clone();
    let other = MINI
        .replace("Version 1.18.31", "Version 1.17.0")
        .replace("zeFoo", "zeBaz");
    let e = parse_page(&other, &mut set).unwrap_err();
    assert!(e.starts_with("line 1:") && e.contains("1.17.0"), "{e}");
    assert_eq!(set, before);
    // Same item on two pages.
    let e = parse_page(MINI, &mut set).unwrap_err();
    assert!(e.contains("duplicate item zeFoo"), "{e}");
    assert!(parse_page("", &mut SeedSet::default()).is_err());
    assert!(parse_dir(Path::new("/nonexistent/seeds")).is_err());
}

/// Truncated and mangled pages must give `Ok` or `Err`, never a panic.
#[test]
fn odd_input_does_not_panic() {
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(SEEDS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "txt") {
            texts.push(std::fs::read_to_string(path).unwrap());
        }
    }
    assert_eq!(texts.len(), 4);
    let mut runs = 0;
    for text in &texts {
        let lines: Vec<&str> = text.lines().collect();
        for cut in 0..=lines.len() {
            let _ = parse_page(&lines[..cut].join("\n"), &mut SeedSet::default());
            runs += 1;
            // Drop one line (every fourth, to keep the test quick).
            if cut % 4 == 1 && cut < lines.len() {
                let mut dropped = lines.clone();
                dropped.remove(cut);
                let _ = parse_page(&dropped.join("\n"), &mut SeedSet::default());
                runs += 1;
            }
        }
        for mangle in [
            "#",
            "[",
            "]",
            "(",
            ")",
            "•",
            "–",
            "  ",
            "enumerator ",
            "struct ",
        ] {
            let odd: String = lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    if i % 7 == 3 {
                        format!("{mangle}{l}{mangle}")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            let _ = parse_page(&odd, &mut SeedSet::default());
            runs += 1;
        }
    }
    assert!(runs > 3000);
}
