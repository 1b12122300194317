//! FabricVertexApi and FabricEdgeApi (`ZE_experimental_fabric`): the fabric of one host CPU.
//!
//! | function | answer |
//! |---|---|
//! | `zeFabricVertexGetExp` | one vertex per device (the CPU), in device order |
//! | `zeFabricVertexGetSubVerticesExp` | none (the device has no sub-devices) |
//! | `zeFabricVertexGetPropertiesExp` | uuid = the device's UUID, type `DEVICE`, not remote, PCI address 0:0:0.0 (a CPU is no PCI function) |
//! | `zeFabricVertexGetDeviceExp`, `zeDeviceGetFabricVertexExp` | the vertex's device, the device's vertex |
//! | `zeFabricEdgeGetExp` | no edges: a single device has no links to another (so no edge handle ever exists) |

use super::*;

/// Value of a fabric vertex handle.
#[derive(Debug)]
pub struct VertexObject {
    /// Ordinal of its device.
    pub device: usize,
}

fn vertex(h: Handle<kinds::FabricVertex>) -> ZeResult<Obj<VertexObject>> {
    h.get::<VertexObject>()
}

impl CpuDriver {
    /// The fabric vertex of device `ordinal`.
    pub(super) fn vertex_handle(&self, ordinal: usize) -> Option<Handle<kinds::FabricVertex>> {
        self.handles().vertices.get(ordinal).copied()
    }
}

#[zekit_icd::implement]
impl FabricVertexApi for CpuDriver {
    fn ze_fabric_vertex_get_exp(
        &self,
        h_driver: Handle<kinds::Driver>,
        p_count: &mut u32,
        ph_vertices: Option<&mut [Option<Handle<kinds::FabricVertex>>]>,
    ) -> ZeResult<()> {
        check_driver(h_driver)?;
        fill_handles(&self.handles().vertices, p_count, ph_vertices);
        Ok(())
    }

    fn ze_fabric_vertex_get_sub_vertices_exp(
        &self,
        h_vertex: Handle<kinds::FabricVertex>,
        p_count: &mut u32,
        ph_subvertices: Option<&mut [Option<Handle<kinds::FabricVertex>>]>,
    ) -> ZeResult<()> {
        vertex(h_vertex)?;
        fill_handles(&[], p_count, ph_subvertices);
        Ok(())
    }

    fn ze_fabric_vertex_get_properties_exp(
        &self,
        h_vertex: Handle<kinds::FabricVertex>,
        p: &mut ze_fabric_vertex_exp_properties_t,
    ) -> ZeResult<()> {
        vertex(h_vertex)?;
        p.uuid = ze_uuid_t { id: self.host.uuid };
        p.r#type = ze_fabric_vertex_exp_type_t::DEVICE;
        p.remote = 0;
        p.address = ze_fabric_vertex_pci_exp_address_t::default();
        Ok(())
    }

    fn ze_fabric_vertex_get_device_exp(
        &self,
        h_vertex: Handle<kinds::FabricVertex>,
        ph_device: &mut Option<Handle<kinds::Device>>,
    ) -> ZeResult<()> {
        *ph_device = self.device_handle(vertex(h_vertex)?.device);
        Ok(())
    }
}

#[zekit_icd::implement]
impl FabricEdgeApi for CpuDriver {
    fn ze_fabric_edge_get_exp(
        &self,
        h_vertex_a: Handle<kinds::FabricVertex>,
        h_vertex_b: Handle<kinds::FabricVertex>,
        p_count: &mut u32,
        ph_edges: Option<&mut [Option<Handle<kinds::FabricEdge>>]>,
    ) -> ZeResult<()> {
        vertex(h_vertex_a)?;
        vertex(h_vertex_b)?;
        fill_handles(&[], p_count, ph_edges);
        Ok(())
    }
}
