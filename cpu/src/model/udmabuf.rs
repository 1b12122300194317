//! `DMA_BUF` export through the kernel's `/dev/udmabuf`: a memfd sealed against shrinking is
//! turned into a dma-buf by the `UDMABUF_CREATE` ioctl.
//!
//! Where `/dev/udmabuf` does not open (no `CONFIG_UDMABUF`, or no permission) or makes no
//! dma-buf of a one-page probe, the driver neither reports nor accepts `DMA_BUF`
//! ([`available`]). Import of `DMA_BUF` is not offered:
//! a dma-buf from another exporter (a GPU's) need not be mappable by the CPU.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;

/// `struct udmabuf_create` of `<linux/udmabuf.h>`.
#[repr(C)]
struct UdmabufCreate {
    memfd: u32,
    flags: u32,
    offset: u64,
    size: u64,
}

/// `UDMABUF_FLAGS_CLOEXEC`: the new dma-buf descriptor is close-on-exec.
const UDMABUF_FLAGS_CLOEXEC: u32 = 0x01;

/// `_IOW('u', 0x42, struct udmabuf_create)`: direction write (1) in bits 30..32, the argument's
/// size in bits 16..30, the type in bits 8..16, the number in bits 0..8.
const UDMABUF_CREATE: u64 =
    (1 << 30) | ((std::mem::size_of::<UdmabufCreate>() as u64) << 16) | ((b'u' as u64) << 8) | 0x42;

/// The opened `/dev/udmabuf`, once per process; `None` when it does not open, or when it makes
/// no dma-buf of a one-page memfd (then the driver does not offer what it cannot honour).
fn device() -> Option<&'static OwnedFd> {
    static DEV: OnceLock<Option<OwnedFd>> = OnceLock::new();
    DEV.get_or_init(|| {
        let dev = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/udmabuf")
            .ok()
            .map(OwnedFd::from)?;
        let page = crate::model::vm::page_size();
        let probe = sealed_memfd("zekit-udmabuf-probe", page).ok()?;
        make(&dev, probe.as_fd(), 0, page as u64).ok()?;
        Some(dev)
    })
    .as_ref()
}

/// Whether the driver can make dma-bufs (`/dev/udmabuf` opens and makes one).
pub fn available() -> bool {
    device().is_some()
}

/// A close-on-exec memfd of `size` bytes (a page multiple) that allows sealing, sealed with
/// `F_SEAL_SHRINK` (udmabuf refuses a memfd that could shrink under its pages).
pub fn sealed_memfd(name: &str, size: usize) -> std::io::Result<OwnedFd> {
    let cname = std::ffi::CString::new(name).unwrap_or_default();
    // SAFETY: `cname` is a valid NUL-terminated string for the duration of the call.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let len = libc::off_t::try_from(size).map_err(|_| std::io::Error::from_raw_os_error(libc::EFBIG))?;
    // SAFETY: ftruncate on a file descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fcntl(F_ADD_SEALS) on a memfd we own, created with MFD_ALLOW_SEALING.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, libc::F_SEAL_SHRINK) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

/// A new close-on-exec dma-buf descriptor for `size` bytes of `memfd` from `offset` (both page
/// multiples; the memfd sealed with `F_SEAL_SHRINK`). The caller owns it.
pub fn create(memfd: BorrowedFd<'_>, offset: u64, size: u64) -> std::io::Result<OwnedFd> {
    let Some(dev) = device() else {
        return Err(std::io::Error::from_raw_os_error(libc::ENODEV));
    };
    make(dev, memfd, offset, size)
}

/// `UDMABUF_CREATE` on the opened device `dev`.
fn make(dev: &OwnedFd, memfd: BorrowedFd<'_>, offset: u64, size: u64) -> std::io::Result<OwnedFd> {
    let arg = UdmabufCreate {
        memfd: memfd.as_raw_fd() as u32,
        flags: UDMABUF_FLAGS_CLOEXEC,
        offset,
        size,
    };
    // SAFETY: UDMABUF_CREATE reads one `struct udmabuf_create`, which `arg` is (repr(C), the
    // kernel's layout), alive for the call; `dev` is the open /dev/udmabuf.
    let fd = unsafe { libc::ioctl(dev.as_raw_fd(), UDMABUF_CREATE as _, &arg as *const UdmabufCreate) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the ioctl returned a new descriptor that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    #[test]
    fn ioctl_number_is_the_kernels() {
        // _IOW('u', 0x42, struct udmabuf_create) with a 24-byte struct.
        assert_eq!(super::UDMABUF_CREATE, 0x4018_7542);
    }

    #[test]
    fn the_memfd_cannot_shrink() {
        let fd = super::sealed_memfd("zekit-test", 8192).unwrap();
        // SAFETY: fcntl and ftruncate on a memfd the test owns.
        unsafe {
            let seals = libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS);
            assert_eq!(seals & libc::F_SEAL_SHRINK, libc::F_SEAL_SHRINK);
            assert_ne!(libc::ftruncate(fd.as_raw_fd(), 4096), 0);
            assert_eq!(libc::ftruncate(fd.as_raw_fd(), 3 * 4096), 0, "growing stays allowed");
        }
    }

    #[test]
    fn no_device_no_dma_buf() {
        let fd = super::sealed_memfd("zekit-test", 4096).unwrap();
        let made = super::create(std::os::fd::AsFd::as_fd(&fd), 0, 4096);
        assert_eq!(made.is_ok(), super::available(), "{made:?}");
    }
}
