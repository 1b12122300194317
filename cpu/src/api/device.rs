//! DeviceApi: The device queries, answered from the host (see `crate::model::properties`).

use super::*;

#[zekit_icd::implement]
impl DeviceApi for CpuDriver {
    // ------------------------------------------------------------ device

    fn ze_device_get(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        ph_devices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        fill_handles(&self.handles().devices, p_count, ph_devices);
        Ok(())
    }

    fn ze_device_get_sub_devices(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        ph_subdevices: Option<&mut [Option<Handle<kinds::Device>>]>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        // props::sub_device_count() is 0: the host CPU is not partitioned.
        fill_handles::<kinds::Device>(&[], p_count, ph_subdevices);
        Ok(())
    }

    fn ze_device_get_root_device(
        &self,
        h_device: Handle<kinds::Device>,
        ph_root_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        *ph_root_device = props::root_device().and_then(|o| self.device_handle(o));
        Ok(())
    }

    fn ze_device_get_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_device_properties_as(self.host, self.init.kind(), p);
        let eus = p
            .numSlices
            .saturating_mul(p.numSubslicesPerSlice)
            .saturating_mul(p.numEUsPerSubslice);
        use chain::ZeDevicePropertiesNextMut as N;
        // SAFETY: the application's pNext chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_device_properties_t_mut(p.pNext) } {
            match ext {
                N::EuCountExt(e) => e.numTotalEUs = eus,
                N::EventQueryKernelTimestampsExtProperties(e) => {
                    e.flags = props::kernel_timestamp_query_flags()
                }
                N::DeviceUsablememSizeExtProperties(e) => {
                    e.currUsableMemSize = self.host.current_available_memory()
                }
                N::RecordReplayGraphExtProperties(e) => {
                    type F = ze_record_replay_graph_ext_flags_t;
                    e.graphFlags = F::from_bits_retain(F::IMMUTABLE_GRAPH.0 | F::SUBGRAPHS.0 | F::APPEND_COMMANDLIST.0)
                }
                // Counter-based events with the IPC flag are shareable (`crate::exec::ipc_events`).
                N::DeviceEventProperties(e) => {
                    e.flags = ze_device_event_properties_flags_t::COUNTER_BASED_IPC
                }
                // Read-only virtual mappings are `mprotect`ed (`crate::model::vm`): a write faults,
                // and the command that made it ends with DEVICE_LOST (`crate::exec::fault`).
                N::DeviceReadonlyMemoryExtProperties(e) => {
                    e.readonlyCapability = ze_device_readonly_memory_capability_t::ENFORCED
                }
                // What mutable command lists change (`crate::model::mutable`).
                N::MutableCommandListExpProperties(e) => {
                    e.mutableCommandListFlags = ze_mutable_command_list_exp_flags_t::empty();
                    e.mutableCommandFlags = crate::model::mutable::SUPPORTED;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn ze_device_get_fabric_vertex_exp(
        &self,
        h_device: Handle<kinds::Device>,
        ph_vertex: &mut Option<Handle<kinds::FabricVertex>>,
    ) -> ZeResult<()> {
        *ph_vertex = self.vertex_handle(ordinal(h_device)?);
        Ok(())
    }

    fn ze_device_get_compute_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_compute_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_compute_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_module_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_module_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_module_properties(self.host, p);
        use chain::ZeDeviceModulePropertiesNextMut as N;
        // SAFETY: the application's pNext chain of output structures, ours for this call.
        for ext in unsafe { chain::next_of_ze_device_module_properties_t_mut(p.pNext) } {
            // zeKernelSchedulingHintExp takes every valid hint but none changes anything (the
            // CPU's threads have no arbitration policy): none is reported as supported.
            if let N::SchedulingHintExpProperties(e) = ext {
                e.schedulingHintFlags = ze_scheduling_hint_exp_flags_t::empty()
            }
        }
        Ok(())
    }

    fn ze_device_get_command_queue_group_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_command_queue_group_properties_t]>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_command_queue_group_properties(self.host, p_count, out);
        Ok(())
    }

    fn ze_device_get_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_memory_properties_t]>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_memory_properties(self.host, p_count, out);
        Ok(())
    }

    fn ze_device_get_memory_access_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_memory_access_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_memory_access_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_cache_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p_count: &mut u32,
        out: Option<&mut [ze_device_cache_properties_t]>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        let Some(out) = out else {
            props::fill_cache_properties(self.host, p_count, None);
            return Ok(());
        };
        props::fill_cache_properties(self.host, p_count, Some(&mut *out));
        let line = self.host.cache_line_size() as usize;
        let filled = (*p_count as usize).min(out.len());
        for entry in &out[..filled] {
            use chain::ZeDeviceCachePropertiesNextMut as N;
            // SAFETY: the application's pNext chain of output structures, ours for this call.
            for ext in unsafe { chain::next_of_ze_device_cache_properties_t_mut(entry.pNext) } {
                if let N::DeviceCacheLineSizeExt(e) = ext {
                    e.cacheLineSize = line;
                }
            }
        }
        Ok(())
    }

    fn ze_device_get_image_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_image_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_image_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_external_memory_properties(
        &self,
        h_device: Handle<kinds::Device>,
        p: &mut ze_device_external_memory_properties_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        props::fill_external_memory_properties(self.host, p);
        Ok(())
    }

    fn ze_device_get_p2p_properties(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        p: &mut ze_device_p2p_properties_t,
    ) -> ZeResult<()> {
        let a = ordinal(h_device)?;
        let b = ordinal(h_peer_device)?;
        props::fill_p2p_properties(a == b, p);
        Ok(())
    }

    fn ze_device_can_access_peer(
        &self,
        h_device: Handle<kinds::Device>,
        h_peer_device: Handle<kinds::Device>,
        value: &mut ze_bool_t,
    ) -> ZeResult<()> {
        let a = ordinal(h_device)?;
        let b = ordinal(h_peer_device)?;
        *value = ze_bool_t::from(props::can_access_peer(a == b));
        Ok(())
    }

    fn ze_device_get_status(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        ordinal(h_device)?;
        match props::device_status() {
            ze_result_t::SUCCESS => Ok(()),
            code => Err(zekit_icd_rt::fail(ZeError::of(code), "device status")),
        }
    }

    fn ze_device_get_global_timestamps(
        &self,
        h_device: Handle<kinds::Device>,
        host_timestamp: &mut u64,
        device_timestamp: &mut u64,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        (*host_timestamp, *device_timestamp) = props::global_timestamps();
        Ok(())
    }

    fn ze_device_synchronize(&self, h_device: Handle<kinds::Device>) -> ZeResult<()> {
        crate::exec::synchronize_device(ordinal(h_device)?);
        match props::synchronize_result() {
            ze_result_t::SUCCESS => Ok(()),
            code => Err(zekit_icd_rt::fail(ZeError::of(code),
                "device execution failed",
            )),
        }
    }

    fn ze_device_get_aggregated_copy_offload_increment_value(
        &self,
        h_device: Handle<kinds::Device>,
        increment_value: &mut u32,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        *increment_value = props::aggregated_copy_offload_increment_value();
        Ok(())
    }

    fn ze_device_get_counter_based_event_max_value(
        &self,
        h_device: Handle<kinds::Device>,
        max_value: &mut u64,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        *max_value = props::counter_based_event_max_value();
        Ok(())
    }

    fn ze_device_get_runtime_requirements(
        &self,
        h_device: Handle<kinds::Device>,
        p_obj_desc: *const c_void,
        p_size: &mut usize,
        p_requirements: *mut c_char,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        if p_obj_desc.is_null() {
            return Err(null_pointer("pObjDesc"));
        }
        // SAFETY: a non-null descriptor from the application starts with stype and pNext.
        let stype = unsafe { (*p_obj_desc.cast::<ze_base_desc_t>()).stype };
        let source = match requirements_source(stype)? {
            // SAFETY: the stype says which descriptor this is.
            RequirementsSource::Module => unsafe {
                let raw =
                    (*p_obj_desc.cast::<ze_runtime_requirements_module_desc_t>()).requirementsSrc;
                Handle::<kinds::Module>::from_raw(raw.cast()).map(|_| ())
            },
            // SAFETY: as above.
            RequirementsSource::Graph => unsafe {
                let raw =
                    (*p_obj_desc.cast::<ze_runtime_requirements_graph_desc_t>()).requirementsSrc;
                Handle::<kinds::Graph>::from_raw(raw.cast()).map(|_| ())
            },
        };
        source.map_err(|_| {
            zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT,
                "requirementsSrc is not a live module or graph of this driver",
            )
        })?;
        let text = runtime_requirements_c(self.host);
        let out = output_bytes(p_requirements.cast(), *p_size, text.len());
        copy_sized(&text, p_size, out);
        Ok(())
    }

    fn ze_device_get_runtime_requirements_key(
        &self,
        h_device: Handle<kinds::Device>,
        p_key: &mut *const c_char,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        // The key is 'static.
        *p_key = props::runtime_requirements_key().as_ptr();
        Ok(())
    }

    fn ze_device_validate_runtime_requirements(
        &self,
        h_device: Handle<kinds::Device>,
        p_requirements: &CStr,
        p_out: &mut ze_validate_runtime_requirements_output_t,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        p_out.result = props::validate_runtime_requirements(self.host, p_requirements.to_bytes());
        Ok(())
    }

    fn ze_device_get_compiler_info(
        &self,
        h_device: Handle<kinds::Device>,
        param_name: ze_device_compiler_info_t,
        _p_next: *const c_void,
        p_size: &mut usize,
        p_data: *mut c_void,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        let Some(data) = props::compiler_info(param_name) else {
            return Err(zekit_icd_rt::fail(ZeError::INVALID_ENUMERATION,
                format!("unknown paramName {param_name:?}"),
            ));
        };
        let out = output_bytes(p_data.cast(), *p_size, data.len());
        copy_sized(data, p_size, out);
        Ok(())
    }

    // ------------------------------------------------------------ external semaphores

    fn ze_device_import_external_semaphore_ext(
        &self,
        h_device: Handle<kinds::Device>,
        desc: &ze_external_semaphore_ext_desc_t,
        ph_semaphore: &mut Option<Handle<kinds::ExternalSemaphoreExt>>,
    ) -> ZeResult<()> {
        ordinal(h_device)?;
        use chain::ZeExternalSemaphoreExtDescNext as N;
        type F = ze_external_semaphore_ext_flags_t;
        // SAFETY: the application's descriptor chain, read-only for this call.
        let fd = unsafe { chain::next_of_ze_external_semaphore_ext_desc_t(desc.pNext) }
            .find_map(|e| match e {
                N::ExternalSemaphoreFdExtDesc(d) => Some(d.fd),
                _ => None,
            });
        let sem = match desc.flags {
            F::OPAQUE_FD | F::VK_TIMELINE_SEMAPHORE_FD => {
                let Some(fd) = fd else {
                    return Err(zekit_icd_rt::fail(
                        ZeError::INVALID_ARGUMENT,
                        "an fd semaphore needs a ze_external_semaphore_fd_ext_desc_t in pNext",
                    ));
                };
                let made = if desc.flags == F::OPAQUE_FD {
                    ExternalSemaphore::binary(fd)
                } else {
                    ExternalSemaphore::timeline(fd)
                };
                made.map_err(|why| zekit_icd_rt::fail(ZeError::INVALID_ARGUMENT, why))?
            }
            f if f.0 & !F::all_known().0 != 0 || f.0.count_ones() != 1 => {
                return Err(zekit_icd_rt::fail(
                    ZeError::INVALID_ENUMERATION,
                    format_args!("external semaphore flags {:#x}: exactly one known type", f.0),
                ));
            }
            f => {
                return Err(zekit_icd_rt::fail(
                    ZeError::UNSUPPORTED_ENUMERATION,
                    format_args!(
                        "external semaphore type {:#x}: only OPAQUE_FD (an eventfd) and VK_TIMELINE_SEMAPHORE_FD (a memfd counter) are supported on Linux",
                        f.0
                    ),
                ));
            }
        };
        *ph_semaphore = Some(Handle::new(SemaphoreObject(Arc::new(sem))));
        Ok(())
    }

    fn ze_device_release_external_semaphore_ext(
        &self,
        h_semaphore: Handle<kinds::ExternalSemaphoreExt>,
    ) -> ZeResult<()> {
        // `[release]` (a fact in xtask/data/seed-facts.yml): the entry layer takes the handle out
        // after this returns. Commands still holding the semaphore keep it open until they ran.
        semaphore(h_semaphore)?;
        Ok(())
    }
}
