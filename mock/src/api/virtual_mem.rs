//! `VirtualMemApi`: the page size of virtual memory reservations. Reserving, mapping and
//! physical memory are not modeled (they answer their fallback results).

use zekit_icd::{kinds, Handle, VirtualMemApi, ZeResult};

use super::MockDriver;

/// The page size of reservations smaller than [`LARGE_PAGE`].
pub const PAGE: usize = 64 << 10;
/// The page size of reservations of at least this size (and the size itself).
pub const LARGE_PAGE: usize = 2 << 20;

/// The page size `zeVirtualMemQueryPageSize` answers for `size`: 64 KiB, or 2 MiB for
/// reservations of 2 MiB and more (as current GPUs do). Never 0, always a power of two.
pub fn page_size(size: usize) -> usize {
    if size >= LARGE_PAGE {
        LARGE_PAGE
    } else {
        PAGE
    }
}

#[zekit_icd::implement]
impl VirtualMemApi for MockDriver {
    fn ze_virtual_mem_query_page_size(
        &self,
        h_context: Handle<kinds::Context>,
        h_device: Handle<kinds::Device>,
        size: usize,
        pagesize: &mut usize,
    ) -> ZeResult<()> {
        Self::context_id(h_context)?;
        self.check_device(h_device)?;
        *pagesize = page_size(size);
        Ok(())
    }
}
